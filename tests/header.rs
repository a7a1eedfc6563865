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
