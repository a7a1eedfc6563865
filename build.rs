//! Generates the C header with cbindgen into OUT_DIR (tests/header.rs compares
//! it with the committed include/onity.h). With ONITY_UPDATE_HEADER=1 it also
//! rewrites include/onity.h.

use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=cbindgen.toml");
    println!("cargo:rerun-if-env-changed=ONITY_UPDATE_HEADER");
    let crate_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("onity.h");
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).expect("cbindgen.toml");
    // The C layer (src/ffi/mod.rs and the modules it declares), plus the
    // core files that define the enums and counter structs crossing the
    // boundary (their one definition; cbindgen.toml renames them to their C
    // names and keeps the core's other public items out).
    let mut builder = cbindgen::Builder::new().with_config(config).with_src(crate_dir.join("src/ffi/mod.rs"));
    for f in [
        "src/core/types.rs",
        "src/core/pool.rs",
        "src/core/stats.rs",
        "src/core/timing/lane.rs",
        "src/core/frame_alloc/stats.rs",
    ] {
        builder = builder.with_src(crate_dir.join(f));
    }
    match builder.generate() {
        Ok(bindings) => {
            bindings.write_to_file(&out);
            if std::env::var("ONITY_UPDATE_HEADER").as_deref() == Ok("1") {
                bindings.write_to_file(crate_dir.join("include/onity.h"));
            }
        }
        Err(e) => {
            // A parse error in a half-edited file must not break the build of
            // everything else; the header test reports the missing header.
            println!("cargo:warning=cbindgen failed: {e}");
            let _ = std::fs::remove_file(&out);
        }
    }
}
