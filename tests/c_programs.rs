//! Compiles and runs the C and C++ test programs in `tests/c` and
//! `tests/cpp` against the library as it ships: the cdylib
//! (`libonity.so`, and once the staticlib `libonity.a`) that cargo builds
//! next to this test, and the committed headers `include/onity.h` /
//! `include/onity.hpp`.
//!
//! A program is `tests/c/<name>.c`, or the directory `tests/c/<name>/`
//! whose `*.c` files are compiled together (with a header of their own).
//!
//! Each program must exit 0 and print a final `OK` line. When `valgrind` is
//! on PATH (and `ONITY_SKIP_VALGRIND` is not `1`), the programs also run
//! under memcheck with leak checking, with `--small` / `ONITY_TEST_SMALL=1`
//! so they shrink their stress sizes.
//!
//! `destroy_in_destroy`, `nested_when_all`, `queued_inputs` and
//! `cancel_then_destroy` are regression tests for library bugs these
//! programs found.
//!
//! Compilers: `gcc` / `g++` (override with `ONITY_CC` / `ONITY_CXX`).
//! Outputs go to `<target>/<profile>/c-tests/`.

use std::ffi::OsString;
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

const C_FLAGS: &[&str] = &["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-g"];
const CXX_FLAGS: &[&str] = &["-std=c++14", "-Wall", "-Wextra", "-Werror", "-pedantic", "-g"];
const SYSTEM_LIBS: &[&str] = &["-lpthread", "-ldl", "-lm"];
const NATIVE_TIMEOUT: Duration = Duration::from_secs(120);
const VALGRIND_TIMEOUT: Duration = Duration::from_secs(300);

/// Every program in tests/c and tests/cpp, and the #[test] that runs it
/// (checked by `every_program_has_a_test`).
const C_PROGRAMS: &[&str] = &[
    "game_loop",
    "bad_input",
    "threads",
    "nested_when_all",
    "edge_cases",
    "destroy_in_destroy",
    "cancel_then_destroy",
    "queued_inputs",
    "sites",
];
const CPP_SOURCES: &[&str] = &["main", "wrapper_a", "wrapper_b"];

struct Paths {
    manifest: PathBuf,
    include: PathBuf,
    /// Directory holding libonity.so and libonity.a.
    lib_dir: PathBuf,
    /// Where programs and their outputs are written.
    out_dir: PathBuf,
}

fn paths() -> &'static Paths {
    static PATHS: OnceLock<Paths> = OnceLock::new();
    PATHS.get_or_init(|| {
        let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        // current_exe: <target>/<profile>/deps/c_programs-<hash>
        let exe = std::env::current_exe().expect("current_exe");
        let mut profile_dir = exe.parent().expect("exe dir").to_path_buf();
        if profile_dir.file_name().is_some_and(|n| n == "deps") {
            profile_dir.pop();
        }
        let profile_name: OsString =
            profile_dir.file_name().map(|n| n.to_os_string()).unwrap_or_else(|| "debug".into());
        let mut candidates = vec![profile_dir.clone()];
        if let Some(t) = std::env::var_os("CARGO_TARGET_DIR") {
            let t = PathBuf::from(t);
            let t = if t.is_relative() { manifest.join(t) } else { t };
            candidates.push(t.join(&profile_name));
        }
        candidates.push(manifest.join("target").join(&profile_name));
        let lib_dir = candidates.iter().find(|d| d.join("libonity.so").is_file()).cloned().unwrap_or_else(|| {
            panic!(
                "libonity.so not found in any of {candidates:?}: run `cargo build --lib` first \
                     (`cargo test` links the rlib only; scripts/test-all.sh does both)"
            )
        });
        let out_dir = profile_dir.join("c-tests");
        fs::create_dir_all(&out_dir).expect("create c-tests output directory");
        Paths { include: manifest.join("include"), manifest, lib_dir, out_dir }
    })
}

fn tool(var: &str, default: &str) -> String {
    std::env::var(var).ok().filter(|s| !s.is_empty()).unwrap_or_else(|| default.to_string())
}
fn cc() -> String {
    tool("ONITY_CC", "gcc")
}
fn cxx() -> String {
    tool("ONITY_CXX", "g++")
}

/// Runs a compiler command; panics with its output on failure.
fn run_compiler(mut cmd: Command, what: &str) {
    let shown = format!("{cmd:?}");
    let out = cmd.output().unwrap_or_else(|e| panic!("{what}: cannot run {shown}: {e}"));
    if !out.status.success() {
        panic!(
            "{what}: compilation failed ({})\ncommand: {shown}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Link {
    Shared,
    Static,
}

/// Compiles `sources` (paths relative to the crate root) into `out_name`.
fn build(compiler: &str, flags: &[&str], sources: &[PathBuf], out_name: &str, link: Link) -> PathBuf {
    let p = paths();
    let exe = p.out_dir.join(out_name);
    let _ = fs::remove_file(&exe);
    let mut cmd = Command::new(compiler);
    cmd.current_dir(&p.manifest).args(flags).arg("-I").arg(&p.include);
    cmd.args(sources).arg("-o").arg(&exe);
    match link {
        Link::Shared => {
            cmd.arg("-L").arg(&p.lib_dir).arg("-lonity");
            let mut rpath = OsString::from("-Wl,-rpath,");
            rpath.push(&p.lib_dir);
            cmd.arg(rpath);
        }
        Link::Static => {
            cmd.arg(p.lib_dir.join("libonity.a"));
        }
    }
    cmd.args(SYSTEM_LIBS);
    run_compiler(cmd, out_name);
    exe
}

/// The sources of a C program: `tests/c/<name>.c`, or every `*.c` of the
/// directory `tests/c/<name>/` (sorted).
fn c_sources(name: &str) -> Vec<PathBuf> {
    let dir = paths().manifest.join("tests/c");
    let file = dir.join(format!("{name}.c"));
    if file.is_file() {
        return vec![file];
    }
    let dir = dir.join(name);
    let mut v: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "c"))
        .collect();
    v.sort();
    assert!(!v.is_empty(), "{}: no .c file", dir.display());
    v
}

fn build_c(name: &str, link: Link) -> PathBuf {
    let out = if link == Link::Static { format!("{name}-static") } else { name.to_string() };
    build(&cc(), C_FLAGS, &c_sources(name), &out, link)
}

fn build_cpp(out_name: &str, flags: &[&str]) -> PathBuf {
    let dir = paths().manifest.join("tests/cpp");
    let sources: Vec<PathBuf> = CPP_SOURCES.iter().map(|s| dir.join(format!("{s}.cpp"))).collect();
    build(&cxx(), flags, &sources, out_name, Link::Shared)
}

/// Prints a note even when libtest captures the output of passing tests
/// (it captures the print macros, not direct writes to stderr).
fn note(msg: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "note: {msg}");
}

fn valgrind_available() -> bool {
    static AVAILABLE: OnceLock<bool> = OnceLock::new();
    *AVAILABLE.get_or_init(|| {
        if std::env::var("ONITY_SKIP_VALGRIND").as_deref() == Ok("1") {
            note("ONITY_SKIP_VALGRIND=1: skipping the valgrind runs");
            return false;
        }
        let ok = Command::new("valgrind")
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            note("valgrind is not on PATH: skipping the valgrind runs");
        }
        ok
    })
}

/// Runs `cmd` with stdout/stderr captured to files named after `label`,
/// killing it after `timeout`. Panics unless it exits 0 and its last stdout
/// line is "OK".
fn run_and_check(mut cmd: Command, label: &str, timeout: Duration) {
    let out_dir = &paths().out_dir;
    let stdout_path = out_dir.join(format!("{label}.stdout"));
    let stderr_path = out_dir.join(format!("{label}.stderr"));
    let shown = format!("{cmd:?}");
    cmd.stdin(Stdio::null())
        .stdout(File::create(&stdout_path).expect("create stdout file"))
        .stderr(File::create(&stderr_path).expect("create stderr file"));
    let start = Instant::now();
    let mut child = cmd.spawn().unwrap_or_else(|e| panic!("{label}: cannot run {shown}: {e}"));
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for the test program") {
            break Some(status);
        }
        if start.elapsed() > timeout {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let elapsed = start.elapsed();
    let stdout = fs::read_to_string(&stdout_path).unwrap_or_default();
    let stderr = fs::read_to_string(&stderr_path).unwrap_or_default();
    let last_line = stdout.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("").trim();
    let passed = matches!(status, Some(s) if s.success()) && last_line == "OK";
    if !passed {
        let how = match status {
            None => format!("timed out after {timeout:?}"),
            Some(s) => format!("exited with {s}"),
        };
        panic!(
            "{label}: FAILED ({how}, last stdout line {last_line:?}, {elapsed:.2?})\n\
             command: {shown}\n--- stdout ---\n{stdout}\n--- stderr ---\n{stderr}"
        );
    }
    eprintln!("{label}: OK in {elapsed:.2?}");
}

fn run_native(exe: &Path, label: &str) {
    run_and_check(Command::new(exe), &format!("{label}.native"), NATIVE_TIMEOUT);
}

fn run_valgrind(exe: &Path, label: &str) {
    if !valgrind_available() {
        return;
    }
    let mut cmd = Command::new("valgrind");
    cmd.args([
        "--error-exitcode=99",
        "--leak-check=full",
        "--errors-for-leak-kinds=definite,indirect",
        "--fair-sched=yes",
    ])
    .arg(exe)
    .arg("--small")
    .env("ONITY_TEST_SMALL", "1");
    run_and_check(cmd, &format!("{label}.valgrind"), VALGRIND_TIMEOUT);
}

/// Builds tests/c/<name>.c against the shared library, runs it natively and
/// under valgrind.
fn c_program(name: &str) {
    let exe = build_c(name, Link::Shared);
    run_native(&exe, name);
    run_valgrind(&exe, name);
}

// ---- the header compiles on its own ---------------------------------------

#[test]
fn headers_compile_alone() {
    let p = paths();
    let h = p.include.join("onity.h");
    let hpp = p.include.join("onity.hpp");
    let warn = ["-Wall", "-Wextra", "-Werror", "-pedantic", "-fsyntax-only"];
    let cases: Vec<(String, Vec<&str>, &Path)> = vec![
        (cc(), vec!["-x", "c", "-std=c99"], h.as_path()),
        (cc(), vec!["-x", "c", "-std=c11"], h.as_path()),
        (cxx(), vec!["-x", "c++", "-std=c++11"], h.as_path()),
        (cxx(), vec!["-x", "c++", "-std=c++14"], h.as_path()),
        (cxx(), vec!["-x", "c++", "-std=c++17"], h.as_path()),
        (cxx(), vec!["-x", "c++", "-std=c++11"], hpp.as_path()),
        (cxx(), vec!["-x", "c++", "-std=c++14"], hpp.as_path()),
        (cxx(), vec!["-x", "c++", "-std=c++17"], hpp.as_path()),
        (cxx(), vec!["-x", "c++", "-std=c++14", "-fno-exceptions", "-fno-rtti"], hpp.as_path()),
    ];
    for (compiler, lang, header) in cases {
        let mut cmd = Command::new(&compiler);
        cmd.args(&lang).args(warn).arg("-I").arg(&p.include).arg(header);
        run_compiler(cmd, &format!("{} alone ({})", header.display(), lang.join(" ")));
    }
}

// ---- C programs -------------------------------------------------------------

#[test]
fn game_loop() {
    c_program("game_loop");
}

/// game_loop linked against the staticlib instead of the cdylib.
#[test]
fn game_loop_static() {
    let exe = build_c("game_loop", Link::Static);
    run_native(&exe, "game_loop-static");
}

#[test]
fn bad_input() {
    c_program("bad_input");
}

#[test]
fn threads() {
    c_program("threads");
}

/// A canceled source destroyed before its waits and combinators observe the
/// cancel (a bug this suite found, since fixed).
#[test]
fn cancel_then_destroy() {
    c_program("cancel_then_destroy");
}

/// Creation sites through ONITY_SITE (issue 20 #1): file and line checked
/// against __FILE__ / __LINE__, from C and from C++ (the same source built
/// as C++14).
#[test]
fn sites() {
    c_program("sites");
    let src = paths().manifest.join("tests/c/sites.c");
    let exe = build(
        &cxx(),
        &["-x", "c++", "-std=c++14", "-Wall", "-Wextra", "-Werror", "-g"],
        &[src],
        "sites-cpp",
        Link::Shared,
    );
    run_native(&exe, "sites-cpp");
}

// ---- C++ wrapper --------------------------------------------------------------

/// main.cpp + wrapper_a.cpp + wrapper_b.cpp, all including onity.hpp, linked
/// into one program (no multiple definitions), as C++14 and as C++11 without
/// exceptions.
#[test]
fn cpp_wrapper() {
    let exe = build_cpp("cpp_wrapper", CXX_FLAGS);
    run_native(&exe, "cpp_wrapper");
    run_valgrind(&exe, "cpp_wrapper");
    let flags11 = ["-std=c++11", "-Wall", "-Wextra", "-Werror", "-pedantic", "-fno-exceptions", "-g"];
    let exe11 = build_cpp("cpp_wrapper_cxx11", &flags11);
    run_native(&exe11, "cpp_wrapper_cxx11");
}

// ---- library bug reproductions (fail until fixed) -----------------------------

/// A WhenAll output used as an input of another combinator leaks its
/// coordinator.
#[test]
fn nested_when_all() {
    c_program("nested_when_all");
}

/// onity_runtime_destroy from a continuation run by onity_runtime_destroy:
/// use after free.
#[test]
fn destroy_in_destroy() {
    c_program("destroy_in_destroy");
}

/// WhenAny / WhenAll over inputs completed on another thread and not yet
/// drained: array order (WhenAny) and completion order (WhenAll) are broken.
#[test]
fn queued_inputs() {
    c_program("queued_inputs");
}

/// Five fixed edge cases: batch destroy during runtime destroy, a cancel pass
/// that skipped a watch, runtime tags reused among live runtimes, a pool
/// capacity that aborted, frame numbers past the wait records' range.
#[test]
fn edge_cases() {
    c_program("edge_cases");
}

// ---- bookkeeping -------------------------------------------------------------

/// Every tests/c/*.c (and tests/c/*/ program directory) is run by a test
/// above, and every tests/cpp/*.cpp is part of the C++ program.
#[test]
fn every_program_has_a_test() {
    let list = |dir: &str, ext: &str| -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(paths().manifest.join(dir))
            .unwrap_or_else(|e| panic!("{dir}: {e}"))
            .filter_map(|e| {
                let p = e.ok()?.path();
                if p.is_dir() && ext == "c" {
                    return Some(p.file_name()?.to_string_lossy().into_owned());
                }
                if p.extension()? != ext {
                    return None;
                }
                Some(p.file_stem()?.to_string_lossy().into_owned())
            })
            .collect();
        v.sort();
        v
    };
    let mut c = C_PROGRAMS.to_vec();
    c.sort();
    assert_eq!(list("tests/c", "c"), c, "tests/c/*.c, tests/c/*/ and C_PROGRAMS differ");
    let mut cpp = CPP_SOURCES.to_vec();
    cpp.sort();
    assert_eq!(list("tests/cpp", "cpp"), cpp, "tests/cpp/*.cpp and CPP_SOURCES differ");
}
