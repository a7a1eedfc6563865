# Sourced by the scripts that load target/release/libonity.so (C# tests, benches, Unity run):
# the one "rebuild the native library when it is missing or older than any Rust source" check.
# Needs ROOT (the repository root). Sets LIB to the library's path.
LIB="$ROOT/target/release/libonity.so"
if [ ! -f "$LIB" ] || [ -n "$(cd "$ROOT" && find src Cargo.toml build.rs -newer "$LIB" -print -quit 2>/dev/null)" ]; then
    (cd "$ROOT" && cargo build --release)
fi
