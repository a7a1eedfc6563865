//! Compile-fail tests for the C++ headers: each `tests/cpp_compile_fail/*.cpp`
//! holds correct uses (built as is: must compile without a warning) and
//! misuses, one per `#if CASE == n` block with a line marked `// ERROR n`.
//! Every case is built with `-DCASE=n` and must fail with an error reported
//! on its marked line, so a case cannot pass for another reason (a typo, a
//! missing include). The first line, `// std: c++11 c++20`, lists the
//! standards to build with; each with g++ and clang++ (`ONITY_CXX`,
//! `ONITY_CLANGXX`; a missing compiler is skipped with a note, CI installs
//! both). Syntax-only: nothing is linked or run.

use std::path::{Path, PathBuf};
use std::process::Command;

const FLAGS: &[&str] = &["-x", "c++", "-Wall", "-Wextra", "-Werror", "-pedantic", "-fsyntax-only"];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn compilers() -> Vec<String> {
    let pick = |var: &str, default: &str| std::env::var(var).ok().filter(|s| !s.is_empty()).unwrap_or(default.into());
    let mut found = Vec::new();
    for cxx in [pick("ONITY_CXX", "g++"), pick("ONITY_CLANGXX", "clang++")] {
        if Command::new(&cxx).arg("--version").output().is_ok_and(|o| o.status.success()) {
            found.push(cxx);
        } else {
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "note: {cxx} not found: its compile-fail builds are skipped");
        }
    }
    assert!(!found.is_empty(), "no C++ compiler found (g++ or clang++)");
    found
}

/// The standards of the `// std:` first line, and each case's number and
/// 1-based line.
fn parse(src: &str, file: &Path) -> (Vec<String>, Vec<(u32, usize)>) {
    let first = src.lines().next().unwrap_or_default();
    let stds: Vec<String> = first
        .strip_prefix("// std:")
        .unwrap_or_else(|| panic!("{}: first line must be `// std: c++11 ...`", file.display()))
        .split_whitespace()
        .map(str::to_string)
        .collect();
    let mut cases = Vec::new();
    for (i, line) in src.lines().enumerate() {
        if let Some(rest) = line.split("// ERROR ").nth(1) {
            let n: String = rest.chars().take_while(char::is_ascii_digit).collect();
            let n: u32 = n.parse().unwrap_or_else(|_| panic!("{}:{}: `// ERROR n` without n", file.display(), i + 1));
            assert!(src.contains(&format!("CASE == {n}\n")), "{}: no `#if CASE == {n}` block", file.display());
            cases.push((n, i + 1));
        }
    }
    assert!(!stds.is_empty() && !cases.is_empty(), "{}: no standards or no cases", file.display());
    (stds, cases)
}

fn compile(cxx: &str, std: &str, case: u32, file: &Path) -> (bool, String) {
    let mut cmd = Command::new(cxx);
    cmd.args(FLAGS).arg(format!("-std={std}")).arg(format!("-DCASE={case}"));
    cmd.arg("-I").arg(root().join("include")).arg(file);
    let out = cmd.output().unwrap_or_else(|e| panic!("cannot run {cxx}: {e}"));
    (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn check_file(name: &str) {
    let file = root().join("tests/cpp_compile_fail").join(name);
    let src = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let (stds, cases) = parse(&src, &file);
    // One thread per compiler and standard (each builds its cases in turn).
    let builds: Vec<(String, String)> =
        compilers().into_iter().flat_map(|cxx| stds.iter().map(move |std| (cxx.clone(), std.clone()))).collect();
    let failures: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> =
            builds.iter().map(|(cxx, std)| s.spawn(|| check_build(name, &file, cxx, std, &cases))).collect();
        handles.into_iter().flat_map(|h| h.join().expect("a build thread panicked")).collect()
    });
    assert!(failures.is_empty(), "{} misuse(s) not refused:\n{}", failures.len(), failures.join("\n"));
}

/// The control and every case with one compiler and standard: the failures.
fn check_build(name: &str, file: &Path, cxx: &str, std: &str, cases: &[(u32, usize)]) -> Vec<String> {
    let (ok, err) = compile(cxx, std, 0, file);
    if !ok {
        return vec![format!("{name} ({cxx} -std={std}): the correct uses do not compile cleanly:\n{err}")];
    }
    let mut failures = Vec::new();
    for &(case, line) in cases {
        let (ok, err) = compile(cxx, std, case, file);
        let at = format!("{name}:{line}:");
        let on_line = err.lines().any(|l| l.contains(&at) && l.contains("error"));
        if ok || !on_line {
            let what = if ok { "compiled" } else { "failed, but not on its line" };
            failures.push(format!("{name} case {case} ({cxx} -std={std}) {what}:\n{err}"));
        }
    }
    failures
}

/// A `Runtime` (owner) is not a `RuntimeRef` (view): no view reference,
/// pointer or sliced copy of an owner, no assignment or deletion through the
/// shared base, no view of a temporary owner, no owner adopting a view.
#[test]
fn runtime_ref_misuses_do_not_compile() {
    check_file("runtime_ref.cpp");
}

/// `coro_runtime::attach` refuses an expiring owner.
#[test]
fn coro_runtime_misuses_do_not_compile() {
    check_file("coro_runtime.cpp");
}

/// Every snippet has its test.
#[test]
fn every_snippet_has_a_test() {
    let mut names: Vec<String> = std::fs::read_dir(root().join("tests/cpp_compile_fail"))
        .expect("tests/cpp_compile_fail")
        .filter_map(|e| Some(e.ok()?.file_name().to_string_lossy().into_owned()))
        .collect();
    names.sort();
    assert_eq!(names, ["coro_runtime.cpp", "runtime_ref.cpp"], "add a #[test] for each snippet");
}
