//! What continuations and callbacks do (by the flags in their user
//! pointer) and the log of what they did, which the model compares with
//! its expectations after every operation.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::c_void;

use onity::ffi::*;

/// The continuation consumes its task.
pub const F_CONSUME: u64 = 1;
/// ... calls `onity_runtime_destroy` on its own runtime (always REENTRANT).
pub const F_DESTROY: u64 = 2;
/// ... ticks its timing (REENTRANT inside a tick or a destroy).
pub const F_TICK: u64 = 4;
/// ... schedules a callback Yield of its timing.
pub const F_YIELD: u64 = 8;
/// ... completes (`set_result`, value = its id) a task of another runtime,
/// whose continuation then runs nested in this one.
pub const F_OTHER_SET: u64 = 16;
/// ... destroys another runtime (OK unless that runtime's own code is on
/// the stack: issue 17, header gap 1).
pub const F_OTHER_DESTROY: u64 = 32;
/// The `status` logged when an `F_OTHER_*` call is not made: the other
/// runtime was already destroyed (its pointer is dangling), or this
/// continuation runs inside its own runtime's destroy (which runs them in
/// an unspecified order: another runtime's objects would see them in any).
pub const SKIPPED: u32 = u32::MAX;
/// Id bit of the Yield a callback schedules (its own id with this bit).
pub const YIELD_BIT: u64 = 1 << 30;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Ev {
    /// A continuation (`onity_task_on_complete`) ran.
    Cont { rt: usize, id: u64, task: u64, state: u32 },
    /// ... and consumed its task.
    Consumed { rt: usize, id: u64, status: u32, value: u64, error: i32, state: u32, index: u32 },
    /// ... or called another function (`what`: its flag).
    Act { rt: usize, id: u64, what: u64, status: u32 },
    /// A callback wait (`onity_*_then`) ran.
    Cb { rt: usize, id: u64, task: u64, state: u32 },
}

thread_local! {
    static LOG: RefCell<Vec<Ev>> = const { RefCell::new(Vec::new()) };
    /// Runtime pointers by model index, for the callbacks (null once destroyed).
    static RTS: RefCell<Vec<*mut OnityRuntime>> = const { RefCell::new(Vec::new()) };
    /// The other runtime and task of an `F_OTHER_*` action, by callback id.
    static OTHER: RefCell<HashMap<u64, (usize, u64)>> = RefCell::new(HashMap::new());
    /// Runtimes being destroyed.
    static CLOSING: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
}

/// Marks runtime `i` as being destroyed (or no longer).
pub fn set_closing(i: usize, closing: bool) {
    CLOSING.with(|c| {
        let mut c = c.borrow_mut();
        c.retain(|&x| x != i);
        if closing {
            c.push(i);
        }
    });
}

fn closing(i: usize) -> bool {
    CLOSING.with(|c| c.borrow().contains(&i))
}

pub fn set_other(id: u64, rt: usize, task: u64) {
    OTHER.with(|o| o.borrow_mut().insert(id, (rt, task)));
}

fn rt_ptr(i: usize) -> *mut OnityRuntime {
    RTS.with(|r| r.borrow()[i])
}

pub fn user_of(id: u64, rt: usize, timing: u32, flags: u64) -> *mut c_void {
    debug_assert!(id < 1 << 31 && rt < 1 << 16 && timing < 256 && flags < 256);
    (id << 32 | (rt as u64) << 16 | (timing as u64) << 8 | flags) as *mut c_void
}

fn log(e: Ev) {
    LOG.with(|l| l.borrow_mut().push(e));
}

pub fn take_log() -> Vec<Ev> {
    LOG.with(|l| std::mem::take(&mut *l.borrow_mut()))
}

pub fn set_rt_ptr(i: usize, p: *mut OnityRuntime) {
    RTS.with(|r| {
        let mut r = r.borrow_mut();
        if r.len() <= i {
            r.resize(i + 1, std::ptr::null_mut());
        }
        r[i] = p;
    });
}

pub fn clear_rt_ptrs() {
    RTS.with(|r| r.borrow_mut().clear());
    OTHER.with(|o| o.borrow_mut().clear());
    CLOSING.with(|c| c.borrow_mut().clear());
}

/// What a continuation or callback does besides logging, by its flags.
unsafe fn act(u: u64, task: u64) {
    let id = u >> 32;
    let rti = ((u >> 16) & 0xffff) as usize;
    let timing = ((u >> 8) & 0xff) as u32;
    let rt = rt_ptr(rti);
    if u & F_CONSUME != 0 {
        let mut o = OnityOutcome { value: 0xdead, error: -99, state: 99, index: 7, reserved: 0 };
        let s = onity_task_consume(rt, task, &mut o);
        log(Ev::Consumed {
            rt: rti,
            id,
            status: s as u32,
            value: o.value,
            error: o.error,
            state: o.state,
            index: o.index,
        });
    }
    if u & F_DESTROY != 0 {
        let s = onity_runtime_destroy(rt);
        log(Ev::Act { rt: rti, id, what: F_DESTROY, status: s as u32 });
    }
    if u & F_TICK != 0 {
        let s = onity_runtime_tick(rt, timing);
        log(Ev::Act { rt: rti, id, what: F_TICK, status: s as u32 });
    }
    if u & F_YIELD != 0 {
        let s = onity_yield_then(rt, timing, 0, Some(wait_cb), user_of(id | YIELD_BIT, rti, 0, 0));
        log(Ev::Act { rt: rti, id, what: F_YIELD, status: s as u32 });
    }
    for what in [F_OTHER_SET, F_OTHER_DESTROY] {
        if u & what == 0 {
            continue;
        }
        let (r2, h2) = OTHER.with(|o| o.borrow()[&id]);
        let p2 = rt_ptr(r2);
        let status = if p2.is_null() || closing(rti) {
            SKIPPED
        } else if what == F_OTHER_SET {
            onity_task_set_result(p2, h2, id) as u32
        } else {
            set_closing(r2, true);
            let s = onity_runtime_destroy(p2);
            set_closing(r2, false);
            if s == OnityStatus::Ok {
                set_rt_ptr(r2, std::ptr::null_mut());
            }
            s as u32
        };
        log(Ev::Act { rt: rti, id, what, status });
    }
}

pub unsafe extern "C" fn cont_cb(user: *mut c_void, task: u64, state: u32) {
    let u = user as u64;
    log(Ev::Cont { rt: ((u >> 16) & 0xffff) as usize, id: u >> 32, task, state });
    act(u, task);
}

pub unsafe extern "C" fn wait_cb(user: *mut c_void, task: u64, state: u32) {
    let u = user as u64;
    log(Ev::Cb { rt: ((u >> 16) & 0xffff) as usize, id: u >> 32, task, state });
    act(u & !F_CONSUME, task);
}
