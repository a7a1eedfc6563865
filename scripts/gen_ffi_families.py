#!/usr/bin/env python3
"""Generates src/ffi/families.g.rs: the C exports that come in families (issue 26, item 5).

The frame waits (KINDS: Yield, NextFrame, DelayFrame, Delay) in every form (FORMS: the task
form, `_then`, `_then_id`, `_at`, `_then_at`) and the combinators (COMBINATORS: WhenAny,
WhenAll, plain and `_at`) and the `_at` forms of the task makers (MAKERS), each written out as the `#[no_mangle] extern "C" fn` that cbindgen
reads into include/onity.h (it expands no macro, so the exports cannot come from one) with its
doc comment. An export's parameters are its kind's plus its form's; its body is one call into
the hand-written `schedule` / `schedule_at` (src/ffi/wait.rs), `combine`
(src/ffi/combinator.rs) or `create_at` (src/ffi/sites.rs).

Usage: scripts/gen_ffi_families.py [--check]
  --check   exit 1 when the committed file differs from what this script writes (run by
            scripts/test-csharp.sh next to the C# generators' checks).
After a change: run it, then `ONITY_UPDATE_HEADER=1 cargo build` and
scripts/gen_csharp_native.py.
"""
import os
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "src", "ffi", "families.g.rs")

# The `file` paragraph of every `_at` export.
FILE_DOC = ("`file`: NULL (no site) or a NUL-terminated string that stays valid and unchanged while "
            "the runtime lives (sites are keyed by its address); at most its first 4,096 bytes are "
            "read and kept (one copy per distinct name).")

# The waits: (name, the kind's own parameters before `timing, token`, the `Ask` built from them,
# the task form's doc, the `_then` form's doc, the `_then_id` form's doc). In the docs, "\n"
# starts a new line; None: the form's default doc (FORMS).
KINDS = [
    ("yield", [], "Ask::yield_(timing, token)",
     "Yield: a task that completes at the next run of `timing`. `token` is a cancellation token "
     "(0 for none). The task succeeds with value 0 (index `UINT32_MAX`), or is canceled (the same "
     "fields); so do the tasks of the other waits. Owner thread.\n"
     "Errors: `NULL_POINTER`, `INVALID_ARGUMENT` (timing), `INVALID_HANDLE` / `STALE_HANDLE` / "
     "`FOREIGN_HANDLE` (token), `WRONG_THREAD`, `REENTRANT`, `EXHAUSTED` (task table full), "
     "`OUT_OF_MEMORY` (nothing made).",
     "Callback form of `onity_yield`: `callback(user, 0, state)` runs at the next run of `timing` "
     "with `ONITY_TASK_STATE_SUCCEEDED`, or `ONITY_TASK_STATE_CANCELED` if `token` was canceled or "
     "the runtime is destroyed first. Nothing to consume. Owner thread.\n"
     "Errors: `NULL_POINTER` (callback), `INVALID_ARGUMENT` (timing), `INVALID_HANDLE` / "
     "`STALE_HANDLE` / `FOREIGN_HANDLE` (token), `WRONG_THREAD`, `REENTRANT` (being destroyed), "
     "`OUT_OF_MEMORY` (nothing made); no `EXHAUSTED`: a callback wait takes no task.",
     "Callback form of `onity_yield` that can be retired: `callback(wait, 0, state)` runs as for "
     "`onity_yield_then` with `user` = `wait`, a slot the caller keeps until the callback ran or "
     "the wait was retired; `*wait` receives the wait's id (on success only; do not change it). "
     "Owner thread. ABI 1.3.\n"
     "Errors: `NULL_POINTER` (runtime, callback, wait), `INVALID_RUNTIME`, `INVALID_ARGUMENT` "
     "(timing), `INVALID_HANDLE` / `STALE_HANDLE` / `FOREIGN_HANDLE` (token), `WRONG_THREAD`, "
     "`REENTRANT` (being destroyed), `OUT_OF_MEMORY`; so do the other `_then_id` forms."),
    ("next_frame", [], "Ask::next_frame(timing, token)",
     "NextFrame: a task that completes at the first run of `timing` in a later frame (made before "
     "the first `onity_runtime_frame_begin`: in the first frame, whatever its number). Owner "
     "thread. Errors as `onity_yield`.",
     None, None),
    ("delay_frame", [("frames", "u32")], "Ask::delay_frame(frames, timing, token)",
     "DelayFrame: a task that completes at the first run of `timing` in a frame at least `frames` "
     "frames after the current one (`frames` = 0 behaves as Yield; before the first "
     "`onity_runtime_frame_begin`, the first frame counts as frame 1 after it). Owner thread. "
     "Errors as `onity_yield`.",
     None, None),
    ("delay", [("seconds", "f64"), ("clock", "u32")], "Ask::delay(seconds, clock, timing, token)",
     "Delay: a task that completes at the first run of `timing`, in a later frame, at which "
     "`clock` (`OnityClock`) has advanced by at least `seconds` (finite, >= 0). Owner thread. "
     "Errors as `onity_yield`, plus `INVALID_ARGUMENT` for a bad clock or seconds.",
     "Callback form of `onity_delay` (see `onity_yield_then`). Owner thread; `user` stays the "
     "caller's. Errors as `onity_yield_then`, plus `INVALID_ARGUMENT` for a bad clock or seconds.",
     "`onity_delay_then` that can be retired (see `onity_yield_then_id`). Owner thread. ABI 1.3. "
     "Errors as `onity_yield_then_id`, plus `INVALID_ARGUMENT` for a bad clock or seconds."),
]

# What a `_then_at` form returns beyond its `_then` form's errors.
CAPTURED_CALLBACK = (", plus `EXHAUSTED` (task table full) while site capture is on: the wait is then "
                     "made as a task wait (`onity_runtime_set_site_capture`)")

TASK = [("out_task", "*mut u64")]
CALLBACK = [("callback", "OnityCallback"), ("user", "*mut c_void")]
RETIRABLE = [("callback", "OnityCallback"), ("wait", "*mut u64")]
SITE = [("file", "*const c_char"), ("line", "u32")]

# The wait forms, in header order: (suffix, parameters after `timing, token`, the `Target`,
# with a site, the default doc of a kind's form ({k}: the kind's name)).
FORMS = [
    ("", TASK, "Target::Task(out_task)", False, None),
    ("_then", CALLBACK, "Target::Callback(callback, user)", False,
     "Callback form of `onity_{k}` (see `onity_yield_then`). Owner thread; `user` stays the caller's. "
     "Errors as `onity_yield_then`."),
    ("_then_id", RETIRABLE, "Target::Retirable(callback, wait)", False,
     "`onity_{k}_then` that can be retired (see `onity_yield_then_id`). Owner thread. ABI 1.3. "
     "Errors as `onity_yield_then_id`."),
    ("_at", TASK + SITE, "Target::Task(out_task)", True, None),
    ("_then_at", CALLBACK + SITE, "Target::Callback(callback, user)", True, None),
]

# The combinators: (name, doc of the plain form); each has an `_at` form.
COMBINATORS = [
    ("when_any",
     "WhenAny: writes to `*out_task` a task that completes like the first input to complete "
     "(succeeded, faulted or canceled, with its value or error); its outcome's `index` is the "
     "winner's position. If inputs have already completed (including on other threads, not yet "
     "drained), the first of them in array order wins at once. With a token, it completes "
     "canceled (index `UINT32_MAX`) if the token is canceled first. An input canceled with "
     "`onity_task_cancel` is an input that completed canceled: if it is the first, the WhenAny "
     "completes canceled with `index` = its position. Each input is consumed by the combinator "
     "when it completes: from then on its handle is `STALE_HANDLE` everywhere (a second "
     "`set_result` too). Pending inputs can still be completed, canceled and read with "
     "`onity_task_state`. Owner thread.\n"
     "Errors: `NULL_POINTER`, `COUNT_OUT_OF_RANGE` (0 or more than "
     "`ONITY_MAX_COMBINATOR_INPUTS`), `DUPLICATE_INPUT`, `ALREADY_AWAITED` (an input has a "
     "continuation or belongs to another combinator), `INVALID_HANDLE` / `STALE_HANDLE` / "
     "`FOREIGN_HANDLE` (inputs, token), "
     "`WRONG_THREAD`, `REENTRANT`, `EXHAUSTED`, `OUT_OF_MEMORY`. On error nothing changes."),
    ("when_all",
     "WhenAll: writes to `*out_task` a task that completes once every input has. It succeeds with "
     "value = `count` when all succeeded; otherwise it takes the state and error of the first "
     "input (in completion order; inputs already complete when the WhenAll is made count in array "
     "order) that faulted or was canceled, with `index` = that input. Read every input's outcome "
     "with `onity_when_all_results` before consuming it. Owner thread; the inputs belong to the "
     "WhenAll from the call on, and are consumed (retired) as they complete, as for "
     "`onity_when_any`. Token and errors as `onity_when_any`."),
]
COMBINATOR = [("tasks", "*const u64"), ("count", "u32"), ("token", "u64"), ("out_task", "*mut u64")]

# The `_at` forms of the task makers (the plain forms are in src/ffi/task.rs): (name, own parameters
# before `out_task`, the core call that makes the task at site `s` and hands it to `take`).
MAKERS = [
    ("task_create", [], "rt.create_task_at(s, take)"),
    ("task_from_result", [("value", "u64")], "rt.create_completed_at(TaskState::Succeeded, value, 0, s, take)"),
]
TAKE = "move |h| out.put(h)"

HEAD = """\
//! GENERATED by `scripts/gen_ffi_families.py` from its tables: do not edit; change the script
//! and run it (`--check` fails when this file differs; scripts/test-csharp.sh runs it).
//!
//! The exports that come in families, written out because cbindgen reads only written-out
//! `fn` items: the frame waits (Yield, NextFrame, DelayFrame, Delay; rules in `wait.rs`) as a
//! task, `_then` (callback), `_then_id` (retirable callback, `retire.rs`), `_at` and `_then_at`
//! (creation site, `sites.rs`), WhenAny / WhenAll (`combinator.rs`) plain and `_at`, and the `_at`
//! forms of `onity_task_create` / `onity_task_from_result`. Each body is one call into `schedule` /
//! `schedule_at` (`wait.rs`), `combine` (`combinator.rs`) or `create_at` (`sites.rs`).

use std::ffi::{c_char, c_void};

use super::combinator::combine;
use super::object::OnityRuntime;
use super::sites::{create_at, site};
use super::status::OnityStatus;
use super::types::OnityCallback;
use super::wait::{schedule, schedule_at, Ask, Target};
use crate::core::{Runtime, TaskState};
"""


def doc(text):
    lines = []
    for para in text.split("\n"):
        lines += textwrap.wrap(para, width=74, break_long_words=False, break_on_hyphens=False)
    return "".join("/// %s\n" % l for l in lines)


def export(name, text, params, body):
    """One export: `body` is its lines (without indentation)."""
    params = [("runtime", "*mut OnityRuntime")] + params
    out = "\n" + doc(text) + "#[no_mangle]\n"
    if len(params) > 7:
        out += "#[allow(clippy::too_many_arguments)]\n"
    one = 'pub extern "C" fn onity_%s(%s) -> OnityStatus {' % (name, ", ".join("%s: %s" % p for p in params))
    if len(one) <= 120:
        out += one + "\n"
    else:
        out += 'pub extern "C" fn onity_%s(\n' % name
        out += "".join("    %s: %s,\n" % p for p in params)
        out += ") -> OnityStatus {\n"
    for line in body:
        assert len(line) + 4 <= 120, line
        out += "    " + line + "\n"
    return out + "}\n"


def render():
    out = HEAD
    for suffix, target_params, target, at, form_doc in FORMS:
        for k, params, ask, *docs in KINDS:
            params = params + [("timing", "u32"), ("token", "u64")] + target_params
            if at:
                plain = "onity_" + k + suffix[: -len("_at")]
                text = "`%s` with a creation site. ABI 1.2; errors as `%s`%s.\n%s" % (
                    plain, plain, CAPTURED_CALLBACK if target.startswith("Target::Callback") else "", FILE_DOC)
                body = ["let target = %s;" % target,
                        "crate::ffi!({ schedule_at(runtime, %s, target, file, line) })" % ask]
            else:
                own = docs[["", "_then", "_then_id"].index(suffix)]
                text = own or form_doc.format(k=k)
                body = ["crate::ffi!({ schedule(runtime, %s, %s) })" % (ask, target)]
            out += export(k + suffix, text, params, body)
    for k, text in COMBINATORS:
        body = ["crate::ffi!({ combine::<false>(runtime, tasks, count, token, out_task, Runtime::%s) })" % k]
        out += export(k, text, COMBINATOR, body)
    for k, _ in COMBINATORS:
        text = "`onity_%s` with a creation site. ABI 1.2; errors as `onity_%s`.\n%s" % (k, k, FILE_DOC)
        body = ["let s = site(file, line);",
                "crate::ffi!({ combine::<true>(runtime, tasks, count, token, out_task, |rt, ins, tok| rt.%s_at(ins, tok, s)) })" % k]
        out += export(k + "_at", text, COMBINATOR + SITE, body)
    for k, params, call in MAKERS:
        text = "`onity_%s` with a creation site. ABI 1.2; errors as `onity_%s`.\n%s" % (k, k, FILE_DOC)
        call = call.replace("take)", TAKE + ")")
        head = "create_at(runtime, out_task, file, line, |rt, s, out|"
        one = "crate::ffi!({ %s %s) })" % (head, call)
        if len(one) + 4 <= 120:  # as rustfmt writes it
            body = [one]
        else:
            body = ["crate::ffi!({", "    %s {" % head, "        " + call, "    })", "})"]
        out += export(k + "_at", text, params + TASK + SITE, body)
    return out


def main():
    text = render()
    if "--check" in sys.argv[1:]:
        if not os.path.exists(OUT) or open(OUT).read() != text:
            print("gen_ffi_families: %s is out of date (run scripts/gen_ffi_families.py)" % os.path.relpath(OUT, ROOT),
                  file=sys.stderr)
            sys.exit(1)
        print("ffi families up to date")
        return
    with open(OUT, "w") as f:
        f.write(text)


main()
