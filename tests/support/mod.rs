//! Helpers shared by the issue 17 test binaries (`issue17`, `load`,
//! `alloc_failure`, `doc_gaps`): runtimes through the C ABI, the resident
//! set size, child processes with a timeout, and C programs built against
//! the shipped library (optionally under valgrind). Also every test's
//! `Rt` (a runtime dropped with its test, `rt.rs`) and `Rng` (`rng.rs`).

#![allow(dead_code, unused_imports)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use onity::ffi::*;

mod rng;
mod rt;
pub use rng::Rng;
pub use rt::Rt;

pub type S = OnityStatus;

/// A runtime with `f` applied to the default config.
pub fn runtime_with(f: impl FnOnce(&mut OnityRuntimeConfig)) -> *mut OnityRuntime {
    let mut c = OnityRuntimeConfig::default();
    assert_eq!(onity_runtime_config_init(&mut c, std::mem::size_of::<OnityRuntimeConfig>() as u32), S::Ok);
    f(&mut c);
    let mut p = std::ptr::null_mut();
    assert_eq!(onity_runtime_create(&c, &mut p), S::Ok);
    p
}

pub fn runtime() -> *mut OnityRuntime {
    runtime_with(|_| {})
}

/// The smallest runtime: one slot chunk, no pooled coordinators.
pub fn small_runtime() -> *mut OnityRuntime {
    runtime_with(|c| {
        c.task_capacity = 1;
        c.cancel_capacity = 1;
        c.wait_capacity = 1;
        c.combinator16_capacity = 0;
        c.combinator32_capacity = 0;
        c.frame_alloc_first_block_bytes = 4096;
    })
}

pub fn frame_info(frame: u64, delta_time: f64, realtime: f64) -> OnityFrameInfo {
    OnityFrameInfo {
        size: std::mem::size_of::<OnityFrameInfo>() as u32,
        reserved: 0,
        frame,
        delta_time,
        unscaled_delta_time: delta_time,
        realtime,
    }
}

/// Begins frame `n` (16 ms frames).
pub fn frame(rt: *mut OnityRuntime, n: u64) {
    assert_eq!(onity_runtime_frame_begin(rt, &frame_info(n, 0.016, n as f64 * 0.016)), S::Ok);
}

pub fn stats(rt: *mut OnityRuntime) -> OnityStats {
    // SAFETY: OnityStats is plain data; all-zero is a valid value.
    let mut st: OnityStats = unsafe { std::mem::zeroed() };
    st.size = std::mem::size_of::<OnityStats>() as u32;
    assert_eq!(onity_runtime_stats(rt, &mut st), S::Ok);
    st
}

pub fn outcome() -> OnityOutcome {
    OnityOutcome { value: 0, error: 0, state: 0, index: 0, reserved: 0 }
}

/// VmRSS of this process, in KiB (`/proc/self/status`).
pub fn vm_rss_kib() -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").expect("read /proc/self/status");
    let line = s.lines().find(|l| l.starts_with("VmRSS:")).expect("VmRSS line");
    line.split_whitespace().nth(1).and_then(|v| v.parse().ok()).expect("VmRSS value")
}

/// Runs `cmd` with its output captured, killed after `timeout`.
/// `None`: timed out.
pub fn run_with_timeout(mut cmd: Command, timeout: Duration) -> Option<Output> {
    let out_dir = std::env::temp_dir();
    let tag = format!("onity-{}-{:?}", std::process::id(), std::thread::current().id());
    let tag: String = tag.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-').collect();
    let (o, e) = (out_dir.join(format!("{tag}.out")), out_dir.join(format!("{tag}.err")));
    cmd.stdin(Stdio::null())
        .stdout(std::fs::File::create(&o).expect("stdout file"))
        .stderr(std::fs::File::create(&e).expect("stderr file"));
    let start = Instant::now();
    let mut child = cmd.spawn().unwrap_or_else(|err| panic!("cannot run {cmd:?}: {err}"));
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break Some(s);
        }
        if start.elapsed() > timeout {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let out = Output {
        status: status?,
        stdout: std::fs::read(&o).unwrap_or_default(),
        stderr: std::fs::read(&e).unwrap_or_default(),
    };
    let _ = std::fs::remove_file(&o);
    let _ = std::fs::remove_file(&e);
    Some(out)
}

pub fn describe(out: &Output) -> String {
    format!(
        "{}\n--- stdout ---\n{}\n--- stderr ---\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

// ---- C programs ---------------------------------------------------------------

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The directory holding `libonity.so` (`cargo build --lib`, which
/// scripts/test-all.sh runs before `cargo test`).
pub fn lib_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("current_exe");
    let mut dir = exe.parent().expect("exe dir").to_path_buf();
    if dir.file_name().is_some_and(|n| n == "deps") {
        dir.pop();
    }
    let profile = dir.file_name().map(|n| n.to_os_string()).unwrap_or_else(|| "debug".into());
    let mut candidates = vec![dir.clone()];
    if let Some(t) = std::env::var_os("CARGO_TARGET_DIR") {
        let t = PathBuf::from(t);
        candidates.push(if t.is_relative() { manifest().join(t) } else { t }.join(&profile));
    }
    candidates.push(manifest().join("target").join(&profile));
    candidates
        .iter()
        .find(|d| d.join("libonity.so").is_file())
        .cloned()
        .unwrap_or_else(|| panic!("libonity.so not found in {candidates:?}: run `cargo build --lib` first"))
}

/// Compiles `tests/<src>` against `include/onity.h` and the cdylib, once
/// per test process (tests running in parallel share the executable).
pub fn build_c(src: &str, name: &str) -> PathBuf {
    static BUILT: Mutex<Vec<(String, PathBuf)>> = Mutex::new(Vec::new());
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, exe)) = built.iter().find(|(n, _)| n == name) {
        return exe.clone();
    }
    let exe = compile_c(src, name);
    built.push((name.to_string(), exe.clone()));
    exe
}

fn compile_c(src: &str, name: &str) -> PathBuf {
    let lib = lib_dir();
    let out_dir = lib.join("issue17-c");
    std::fs::create_dir_all(&out_dir).expect("create the C output directory");
    let exe = out_dir.join(name);
    let cc = std::env::var("ONITY_CC").ok().filter(|s| !s.is_empty()).unwrap_or_else(|| "gcc".into());
    let out = Command::new(&cc)
        .current_dir(manifest())
        .args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-g", "-D_DEFAULT_SOURCE", "-I", "include"])
        .arg(Path::new("tests").join(src))
        .arg("-o")
        .arg(&exe)
        .arg("-L")
        .arg(&lib)
        .arg("-lonity")
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .args(["-lpthread", "-ldl", "-lm"])
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cc}: {e}"));
    assert!(out.status.success(), "compiling {src}: {}", describe(&out));
    exe
}

pub fn valgrind_available() -> bool {
    Command::new("valgrind").arg("--version").output().is_ok_and(|o| o.status.success())
}

/// Runs `exe args` under memcheck with valgrind's default error kinds
/// (leaks: definite and possible) and `--error-exitcode=99`.
pub fn run_valgrind(exe: &Path, args: &[&str]) -> Output {
    let mut cmd = Command::new("valgrind");
    cmd.args(["--error-exitcode=99", "--leak-check=full", "--fair-sched=yes"]).arg(exe).args(args);
    run_with_timeout(cmd, Duration::from_secs(300)).expect("valgrind timed out")
}
