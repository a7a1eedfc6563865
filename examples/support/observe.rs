//! The demo's observability (issue 20): creation sites passed to the `_at`
//! calls, the live-task report grouped by site, the frame timeline written
//! as Chrome trace JSON (`--trace PATH`).

use std::ffi::CStr;
use std::ptr;

use onity::ffi::*;

/// This file and line as an `_at` call's last two arguments (what
/// `ONITY_SITE` is in C): a NUL-terminated literal, valid for the program.
macro_rules! site {
    () => {
        (concat!(file!(), "\0").as_ptr() as *const std::ffi::c_char, line!())
    };
}
pub(crate) use site;

/// Prints the live-task report: the `top` largest groups of live tasks at
/// least `min_age` frames old, by creation site.
pub fn print_site_report(rt: *mut OnityRuntime, min_age: u64, top: usize) {
    let mut lines = vec![OnitySiteReport::default(); top];
    let mut n = 0u32;
    let s = onity_runtime_site_report(rt, min_age, lines.as_mut_ptr(), top as u32, &mut n);
    assert_eq!(s, OnityStatus::Ok, "site report");
    println!("\nlive tasks by creation site ({n} sites; tasks at least {min_age} frames old):");
    println!("{:>7} {:>8} {:>10} {:>8} {:>11}  site", "tasks", "pending", "completed", "awaited", "oldest age");
    for l in &lines[..(n as usize).min(top)] {
        let site = if l.file.is_null() {
            "(no site)".to_string()
        } else {
            // SAFETY: the runtime's copy, valid while it lives.
            let f = unsafe { CStr::from_ptr(l.file) }.to_string_lossy();
            format!("{}:{}", f.rsplit('/').next().unwrap_or(&f), l.line)
        };
        let age = if l.oldest_age_frames == u64::MAX { "?".into() } else { l.oldest_age_frames.to_string() };
        println!("{:>7} {:>8} {:>10} {:>8} {:>11}  {site}", l.tasks, l.pending, l.completed, l.awaited, age);
    }
}

/// Writes the recorded frame timeline to `path` as Chrome trace JSON.
pub fn write_trace(rt: *mut OnityRuntime, path: &std::path::Path) -> std::io::Result<()> {
    let mut len = 0usize;
    assert_eq!(onity_trace_dump(rt, ptr::null_mut(), 0, &mut len), OnityStatus::Ok, "trace length");
    let mut buf = vec![0u8; len];
    assert_eq!(onity_trace_dump(rt, buf.as_mut_ptr().cast(), len, &mut len), OnityStatus::Ok, "trace dump");
    let (mut held, mut dropped) = (0u64, 0u64);
    assert_eq!(onity_trace_counts(rt, &mut held, &mut dropped), OnityStatus::Ok, "trace counts");
    std::fs::write(path, &buf)?;
    println!(
        "frame timeline: {} ({held} events, {dropped} overwritten; open in ui.perfetto.dev or chrome://tracing)",
        path.display()
    );
    Ok(())
}
