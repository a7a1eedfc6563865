//! The committed header must equal what cbindgen generates from the source.

#[test]
fn committed_header_matches_cbindgen_output() {
    let generated = std::fs::read_to_string(concat!(env!("OUT_DIR"), "/onity.h"))
        .expect("build.rs did not generate the header (cbindgen failed: see the build warnings)");
    let committed = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/include/onity.h"))
        .expect("include/onity.h is missing");
    if generated != committed {
        let line = generated.lines().zip(committed.lines()).position(|(a, b)| a != b).map(|i| i + 1);
        panic!(
            "include/onity.h differs from the cbindgen output (first differing line: {line:?}); \
             regenerate it with `ONITY_UPDATE_HEADER=1 cargo build` and commit it"
        );
    }
}

/// The C++ wrapper's enums follow from the header: every status, timing,
/// clock and task state the header defines has its `enum class` value in
/// `include/onity.hpp` (which spells each one with the header's constant),
/// and nothing else is there.
#[test]
fn cpp_wrapper_enums_cover_the_header() {
    let header = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/include/onity.h")).unwrap();
    let hpp = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/include/onity.hpp")).unwrap();
    let consts = |text: &str, prefix: &str| -> Vec<String> {
        let mut v: Vec<String> = text
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|w| w.starts_with(prefix) && !w.ends_with("_COUNT"))
            .map(str::to_owned)
            .collect();
        v.sort();
        v.dedup();
        v
    };
    for prefix in ["ONITY_STATUS_", "ONITY_TIMING_", "ONITY_CLOCK_", "ONITY_TASK_STATE_"] {
        let in_header = consts(&header, prefix);
        assert!(!in_header.is_empty(), "{prefix}: none in the header");
        assert_eq!(consts(&hpp, prefix), in_header, "{prefix}: onity.hpp and onity.h differ");
    }
}
