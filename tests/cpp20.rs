//! Builds and runs the C++20 coroutine layer's programs against the shipped
//! library (`libonity.so` next to this test) and headers (`include/onity/coro.hpp`):
//!
//! - `tests/cpp20/*.cpp` but `alloc.cpp`: one program of several translation
//!   units that all include the header (frame-by-frame semantics against the C
//!   waits, cancellation at every await kind, runtime destruction, threads,
//!   misuse, 10,000 coroutines for 1,000 frames);
//! - `tests/cpp20/alloc.cpp`: zero heap allocations per coroutine and per await
//!   after warm-up (global operator new replaced and counted);
//! - `tests/cpp20/mixed/`: two translation units, one built without
//!   exceptions, sharing coroutines;
//! - `tests/cpp20/abort/`: a `-fno-exceptions` program a C++ exception
//!   still reaches: it must abort with the runtime's message;
//! - `examples/cpp/game_loop.cpp`: the example game loop;
//! - `benches/cpp/coro_bench.cpp` in its `check` mode (no allocation in the
//!   measured frames), so the benchmark cannot rot.
//!
//! Each with g++ and clang++, with exceptions and with `-fno-exceptions`,
//! `-std=c++20 -Wall -Wextra -Werror`; under valgrind (memcheck, leak check,
//! `--small` sizes) for the g++ build and under AddressSanitizer +
//! UndefinedBehaviorSanitizer for a clang++ build. A missing compiler skips
//! its builds with a note (CI installs both: scripts/test-all.sh, .ci/run).
//! Compilers: `ONITY_CXX` (default g++) and `ONITY_CLANGXX` (default clang++).
//! Outputs go to `<target>/<profile>/cpp20-tests/`.

use std::ffi::OsString;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::thread;
use std::time::{Duration, Instant};

const WARNINGS: &[&str] = &["-std=c++20", "-Wall", "-Wextra", "-Werror", "-g"];
const TIMEOUT: Duration = Duration::from_secs(240);
const VALGRIND_TIMEOUT: Duration = Duration::from_secs(600);

/// The translation units of the main program (tests/cpp20, checked by
/// `every_source_is_built`), and the separate allocation-counting program.
const SOURCES: &[&str] = &["main", "semantics", "cancel", "tasks", "threads", "misuse", "stress", "edges", "plain"];
const ALLOC_SOURCE: &str = "alloc";

struct Layout {
    root: PathBuf,
    lib_dir: PathBuf,
    out: PathBuf,
}

fn layout() -> &'static Layout {
    static L: OnceLock<Layout> = OnceLock::new();
    L.get_or_init(|| {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        // This test runs from <target>/<profile>/deps; the cdylib is one level up.
        let mut profile = std::env::current_exe().expect("current_exe");
        profile.pop();
        if profile.ends_with("deps") {
            profile.pop();
        }
        let lib_dir = [profile.clone(), root.join("target").join(profile.file_name().unwrap_or_default())]
            .into_iter()
            .find(|d| d.join("libonity.so").is_file())
            .unwrap_or_else(|| panic!("libonity.so not found next to {profile:?}: run `cargo build --lib` first"));
        let out = profile.join("cpp20-tests");
        fs::create_dir_all(&out).expect("create the output directory");
        Layout { root, lib_dir, out }
    })
}

fn say(msg: &str) {
    // Straight to stderr: libtest captures the print macros of passing tests.
    let _ = writeln!(std::io::stderr(), "cpp20: {msg}");
}

/// A compiler from the environment or its default, if it runs.
fn compiler(var: &str, default: &str) -> Option<String> {
    let name = std::env::var(var).ok().filter(|s| !s.is_empty()).unwrap_or_else(|| default.to_string());
    let runs = Command::new(&name).arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status();
    if runs.is_ok_and(|s| s.success()) {
        Some(name)
    } else {
        say(&format!("{name} is not installed: its C++20 builds are skipped (apt-get install {default})"));
        None
    }
}
fn gxx() -> Option<String> {
    compiler("ONITY_CXX", "g++")
}
fn clangxx() -> Option<String> {
    compiler("ONITY_CLANGXX", "clang++")
}

fn checked(out: Output, what: &str) -> Output {
    if !out.status.success() {
        panic!(
            "{what} failed ({})\n--- stdout ---\n{}\n--- stderr ---\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    out
}

/// Compiles `sources` (relative to the crate root; in parallel, one process
/// per file) with `flags` and links them against libonity into `name`.
fn build(cxx: &str, flags: &[&str], sources: &[PathBuf], name: &str) -> PathBuf {
    let l = layout();
    let objdir = l.out.join(format!("{name}.o.d"));
    fs::create_dir_all(&objdir).expect("object directory");
    let objects: Vec<PathBuf> = thread::scope(|s| {
        let jobs: Vec<_> = sources
            .iter()
            .map(|src| {
                let obj = objdir.join(src.file_stem().expect("source name")).with_extension("o");
                s.spawn(move || {
                    let mut c = Command::new(cxx);
                    c.current_dir(&l.root).args(flags).arg("-I").arg(l.root.join("include")).arg("-c").arg(src);
                    c.arg("-o").arg(&obj);
                    checked(c.output().expect("run the compiler"), &format!("{name}: compiling {}", src.display()));
                    obj
                })
            })
            .collect();
        jobs.into_iter().map(|j| j.join().expect("compile job")).collect()
    });
    let exe = l.out.join(name);
    let mut rpath = OsString::from("-Wl,-rpath,");
    rpath.push(&l.lib_dir);
    let mut c = Command::new(cxx);
    c.args(flags).args(&objects).arg("-o").arg(&exe).arg("-L").arg(&l.lib_dir).arg("-lonity").arg(rpath);
    c.args(["-lpthread", "-ldl", "-lm"]);
    checked(c.output().expect("run the linker"), &format!("{name}: linking"));
    exe
}

/// Runs a program to completion (or `limit`); it must exit 0 with a last line
/// starting with `last_line` ("OK" for the test programs).
fn run(cmd: Command, label: &str, limit: Duration) {
    run_expecting(cmd, label, limit, "OK")
}

fn run_expecting(mut cmd: Command, label: &str, limit: Duration, last_line: &str) {
    let l = layout();
    let (out_path, err_path) = (l.out.join(format!("{label}.stdout")), l.out.join(format!("{label}.stderr")));
    cmd.stdin(Stdio::null())
        .stdout(fs::File::create(&out_path).expect("stdout file"))
        .stderr(fs::File::create(&err_path).expect("stderr file"));
    let shown = format!("{cmd:?}");
    let start = Instant::now();
    let mut child = cmd.spawn().unwrap_or_else(|e| panic!("{label}: cannot start {shown}: {e}"));
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break Some(s);
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        thread::sleep(Duration::from_millis(20));
    };
    let stdout = fs::read_to_string(&out_path).unwrap_or_default();
    let stderr = fs::read_to_string(&err_path).unwrap_or_default();
    let last = stdout.lines().rev().find(|s| !s.trim().is_empty()).unwrap_or("").trim().to_string();
    if !(status.is_some_and(|s| s.success()) && last.starts_with(last_line)) {
        panic!(
            "{label}: failed ({}, last line {last:?})\ncommand: {shown}\n--- stdout ---\n{stdout}\n--- stderr ---\n{stderr}",
            status.map_or_else(|| format!("timed out after {limit:?}"), |s| s.to_string())
        );
    }
    say(&format!("{label}: OK in {:.1?}", start.elapsed()));
}

fn native(exe: &Path, label: &str, args: &[&str]) {
    let mut c = Command::new(exe);
    c.args(args);
    run(c, label, TIMEOUT);
}

fn under_valgrind(exe: &Path, label: &str) {
    if std::env::var("ONITY_SKIP_VALGRIND").as_deref() == Ok("1") {
        say("ONITY_SKIP_VALGRIND=1: no valgrind run");
        return;
    }
    if Command::new("valgrind").arg("--version").stdout(Stdio::null()).status().map_or(true, |s| !s.success()) {
        say("valgrind is not installed: no valgrind run");
        return;
    }
    let mut c = Command::new("valgrind");
    c.args([
        "--error-exitcode=99",
        "--leak-check=full",
        "--errors-for-leak-kinds=definite,indirect",
        "--fair-sched=yes",
    ]);
    c.arg(exe).arg("--small").env("ONITY_TEST_SMALL", "1");
    run(c, label, VALGRIND_TIMEOUT);
}

fn sources(dir: &str, names: &[&str]) -> Vec<PathBuf> {
    names.iter().map(|n| PathBuf::from(dir).join(format!("{n}.cpp"))).collect()
}

/// The main program and the allocation program with one compiler and flags
/// (`args`: the main program's, e.g. `--full` for the full-size stress test).
fn suite(cxx: &str, tag: &str, flags: &[&str], args: &[&str], valgrind: bool) {
    let all: Vec<&str> = WARNINGS.iter().chain(flags).copied().collect();
    let main = build(cxx, &all, &sources("tests/cpp20", SOURCES), &format!("coro-{tag}"));
    native(&main, &format!("coro-{tag}"), args);
    let alloc = build(cxx, &all, &sources("tests/cpp20", &[ALLOC_SOURCE]), &format!("coro-alloc-{tag}"));
    native(&alloc, &format!("coro-alloc-{tag}"), &[]);
    if valgrind {
        under_valgrind(&main, &format!("coro-{tag}.valgrind"));
        under_valgrind(&alloc, &format!("coro-alloc-{tag}.valgrind"));
    }
}

/// Under valgrind, pooled blocks are poisoned while free (ONITY_CORO_VALGRIND).
#[test]
fn gxx_with_exceptions() {
    if let Some(cxx) = gxx() {
        suite(&cxx, "gcc", &["-O0", "-DONITY_CORO_VALGRIND=1"], &[], true);
    }
}

/// This build runs the stress test at its full size (10,000 coroutines for
/// 1,000 frames; the others for 100 frames).
#[test]
fn gxx_without_exceptions() {
    if let Some(cxx) = gxx() {
        suite(&cxx, "gcc-noexc", &["-O2", "-fno-exceptions"], &["--full"], false);
    }
}

#[test]
fn clangxx_with_exceptions() {
    if let Some(cxx) = clangxx() {
        suite(&cxx, "clang", &["-O2"], &[], false);
    }
}

#[test]
fn clangxx_without_exceptions() {
    if let Some(cxx) = clangxx() {
        suite(&cxx, "clang-noexc", &["-O0", "-fno-exceptions"], &[], false);
    }
}

/// AddressSanitizer (with leak detection; pooled blocks poisoned while free)
/// and UndefinedBehaviorSanitizer, every report fatal.
#[test]
fn clangxx_sanitizers() {
    let Some(cxx) = clangxx() else { return };
    let flags = ["-O1", "-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"];
    let all: Vec<&str> = WARNINGS.iter().chain(&flags).copied().collect();
    let exe = build(&cxx, &all, &sources("tests/cpp20", SOURCES), "coro-asan");
    let mut c = Command::new(&exe);
    c.arg("--small").env("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=0").env("UBSAN_OPTIONS", "print_stacktrace=1");
    run(c, "coro-asan", TIMEOUT);
}

/// Two translation units, one built with exceptions and one without, hand
/// each other coroutines (tests/cpp20/mixed): the layer's types and inline
/// functions mean the same in both. The `-fno-exceptions` object is linked
/// first, so its copies of the shared inline functions are the ones kept.
#[test]
fn mixed_exception_modes() {
    for (cxx, tag) in [(gxx(), "gcc"), (clangxx(), "clang")] {
        let Some(cxx) = cxx else { continue };
        let l = layout();
        let objdir = l.out.join(format!("mixed-{tag}.o.d"));
        fs::create_dir_all(&objdir).expect("object directory");
        let mut objects = Vec::new();
        for (src, extra) in [("noexc", &["-fno-exceptions"][..]), ("exc", &[][..])] {
            let obj = objdir.join(format!("{src}.o"));
            let mut c = Command::new(&cxx);
            c.current_dir(&l.root).args(WARNINGS).args(["-O1"]).args(extra);
            c.arg("-I").arg(l.root.join("include")).arg("-c").arg(format!("tests/cpp20/mixed/{src}.cpp"));
            checked(c.arg("-o").arg(&obj).output().expect("run the compiler"), &format!("mixed-{tag}: {src}.cpp"));
            objects.push(obj);
        }
        let exe = l.out.join(format!("mixed-{tag}"));
        let mut rpath = OsString::from("-Wl,-rpath,");
        rpath.push(&l.lib_dir);
        let mut c = Command::new(&cxx);
        c.args(&objects).arg("-o").arg(&exe).arg("-L").arg(&l.lib_dir).arg("-lonity").arg(rpath).arg("-lpthread");
        checked(c.output().expect("run the linker"), &format!("mixed-{tag}: linking"));
        native(&exe, &format!("mixed-{tag}"), &[]);
    }
}

/// The README's example game loop, with each compiler (valgrind for g++).
#[test]
fn example_game_loop() {
    for (cxx, tag) in [(gxx(), "gcc"), (clangxx(), "clang")] {
        let Some(cxx) = cxx else { continue };
        let flags: Vec<&str> = WARNINGS.iter().chain(&["-O2"]).copied().collect();
        let exe = build(&cxx, &flags, &[PathBuf::from("examples/cpp/game_loop.cpp")], &format!("game-loop-{tag}"));
        native(&exe, &format!("game-loop-{tag}"), &[]);
        if tag == "gcc" {
            under_valgrind(&exe, "game-loop.valgrind");
        }
    }
}

/// The README's "C++20 coroutines" program compiles and runs as printed.
#[test]
fn readme_example() {
    let Some(cxx) = gxx() else { return };
    let l = layout();
    let readme = fs::read_to_string(l.root.join("README.md")).expect("README.md");
    let section = readme.find("## C++20 coroutines").expect("the README's C++20 coroutines section");
    let start = section + readme[section..].find("```cpp\n").expect("its cpp block") + "```cpp\n".len();
    let end = start + readme[start..].find("```\n").expect("the block's end");
    let src = l.out.join("readme_example.cpp");
    fs::write(&src, &readme[start..end]).expect("write the example");
    let flags: Vec<&str> = WARNINGS.iter().chain(&["-O2"]).copied().collect();
    let exe = build(&cxx, &flags, &[src], "readme-example");
    run_expecting(Command::new(&exe), "readme-example", TIMEOUT, "level 4096,");
}

/// The benchmark builds and its measured frames allocate nothing.
#[test]
fn benchmark_check() {
    let Some(cxx) = gxx() else { return };
    let flags: Vec<&str> = WARNINGS.iter().chain(&["-O2"]).copied().collect();
    let exe = build(&cxx, &flags, &[PathBuf::from("benches/cpp/coro_bench.cpp")], "coro-bench");
    native(&exe, "coro-bench-check", &["check"]);
}

/// The header compiles on its own, in each mode, with each compiler.
#[test]
fn header_alone() {
    let header = layout().root.join("include/onity/coro.hpp");
    for cxx in [gxx(), clangxx()].into_iter().flatten() {
        for extra in [&[][..], &["-fno-exceptions", "-fno-rtti"][..]] {
            let mut c = Command::new(&cxx);
            c.args(["-x", "c++", "-fsyntax-only", "-pedantic"]).args(WARNINGS).args(extra);
            c.arg("-I").arg(layout().root.join("include")).arg(&header);
            checked(c.output().expect("run the compiler"), &format!("{cxx} {extra:?}: coro.hpp alone"));
        }
    }
}

/// The ghost-frame gate (core.hpp): the callback of a plain wait skips the
/// alive check only where the compiler's resume() passes the frame address
/// as ghost_resume takes it. Clang calls a frame's resume entry with LLVM's
/// fastcc, which passes one pointer in ECX on 32-bit x86 (a C function reads
/// it from the stack): the check must stay on there. The gate's block is
/// preprocessed for each target (no target headers needed).
#[test]
fn ghost_frame_gate_per_target() {
    let text = fs::read_to_string(layout().root.join("include/onity/coro/core.hpp")).expect("core.hpp");
    let start = text.find("#ifndef ONITY_CORO_GHOST_FRAME").expect("the gate's start");
    let end = text.find("/* (end of the ghost-frame gate) */").expect("the gate's end");
    let gate = &text[start..end];
    let value = |cxx: &str, target: &[&str]| -> String {
        let mut c = Command::new(cxx);
        c.args(target).args(["-x", "c++", "-std=c++20", "-E", "-dM", "-"]);
        c.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = c.spawn().expect("run the preprocessor");
        child.stdin.take().expect("stdin").write_all(gate.as_bytes()).expect("write the gate");
        let out =
            checked(child.wait_with_output().expect("preprocessor output"), &format!("{cxx} {target:?}: the gate"));
        let defs = String::from_utf8_lossy(&out.stdout).into_owned();
        let line =
            defs.lines().find(|l| l.starts_with("#define ONITY_CORO_GHOST_FRAME ")).expect("the gate defines it");
        line.rsplit(' ').next().unwrap_or_default().to_string()
    };
    if let Some(cxx) = clangxx() {
        for (target, want) in [
            ("x86_64-linux-gnu", "1"),
            ("x86_64-pc-windows-msvc", "1"),
            ("aarch64-linux-android", "1"),
            ("aarch64-apple-ios", "1"),
            ("armv7a-linux-androideabi", "1"),
            ("i686-linux-gnu", "0"),
            ("i686-linux-android", "0"),
            ("i686-pc-windows-msvc", "0"),
            ("riscv64-linux-gnu", "0"),
        ] {
            assert_eq!(value(&cxx, &[&format!("--target={target}")]), want, "clang, {target}");
        }
    }
    if let Some(cxx) = gxx() {
        assert_eq!(value(&cxx, &[]), "1", "g++ (host)");
    }
}

/// With the alive check kept (ONITY_CORO_GHOST_FRAME 0: other compilers,
/// Clang on 32-bit x86), the plain waits' tests pass as well: a ghost's
/// callback finds the frame dead and ends the ghost itself.
#[test]
fn ghost_check_kept() {
    let Some(cxx) = gxx() else { return };
    let flags: Vec<&str> = WARNINGS.iter().chain(&["-O2", "-DONITY_CORO_GHOST_FRAME=0"]).copied().collect();
    let exe = build(&cxx, &flags, &sources("tests/cpp20", &["main", "plain"]), "coro-ghost-check");
    native(&exe, "coro-ghost-check", &[]);
}

/// Built with `-fno-exceptions`, a C++ exception that still reaches the
/// runtime (a library call throwing in a coroutine's body, or in an until
/// predicate) aborts with the runtime's message naming the cause, not with
/// Rust's "cannot catch foreign exceptions" (tests/cpp20/abort).
#[test]
fn exception_in_a_no_exceptions_build_aborts_clearly() {
    for (cxx, tag) in [(gxx(), "gcc"), (clangxx(), "clang")] {
        let Some(cxx) = cxx else { continue };
        let flags: Vec<&str> = WARNINGS.iter().chain(&["-O1", "-fno-exceptions"]).copied().collect();
        let src = PathBuf::from("tests/cpp20/abort/foreign_exception.cpp");
        let exe = build(&cxx, &flags, &[src], &format!("foreign-exception-{tag}"));
        for mode in ["resume", "predicate"] {
            let out = Command::new(&exe).arg(mode).stdin(Stdio::null()).output().expect("run the program");
            let stderr = String::from_utf8_lossy(&out.stderr);
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert!(!out.status.success(), "{tag} {mode}: exited normally\n{stdout}\n{stderr}");
            assert!(!stdout.contains("not reached"), "{tag} {mode}: went on after the exception\n{stdout}");
            assert!(
                stderr.contains("onity: fatal: an exception unwound out of a callback into the Onity runtime"),
                "{tag} {mode}: stderr lacks the runtime's message:\n{stderr}"
            );
            assert!(!stderr.contains("foreign exceptions"), "{tag} {mode}: Rust's message:\n{stderr}");
            say(&format!("foreign-exception-{tag} {mode}: aborted with the message ({})", out.status));
        }
    }
}

/// Every tests/cpp20/*.cpp is built by a test above.
#[test]
fn every_source_is_built() {
    let mut found: Vec<String> = fs::read_dir(layout().root.join("tests/cpp20"))
        .expect("tests/cpp20")
        .filter_map(|e| {
            let p = e.ok()?.path();
            (p.extension()? == "cpp").then(|| p.file_stem().unwrap().to_string_lossy().into_owned())
        })
        .collect();
    found.sort();
    let mut listed: Vec<String> = SOURCES.iter().chain(&[ALLOC_SOURCE]).map(|s| s.to_string()).collect();
    listed.sort();
    assert_eq!(found, listed, "tests/cpp20/*.cpp and SOURCES / ALLOC_SOURCE differ");
}
