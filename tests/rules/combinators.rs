//! WhenAny / WhenAll: who wins, input order, input validation, error and
//! result rules, cancellation by token.

use super::*;

#[test]
fn when_any_first_completion_wins_and_losers_are_consumed() {
    let rt = Runtime::new(Config::default());
    let ins: Vec<u64> = (0..5).map(|_| rt.create_task().unwrap()).collect();
    let any = rt.when_any(&ins, 0).unwrap();
    assert_eq!(rt.consume(ins[0]), Err(Error::AlreadyAwaited));
    assert_eq!(rt.on_complete(ins[0], log_cb, std::ptr::null_mut()), Err(Error::AlreadyAwaited));
    rt.complete(ins[3], TaskState::Faulted, 0, 33, true).unwrap();
    let o = rt.consume(any).unwrap();
    assert_eq!((o.state, o.error, o.index), (TaskState::Faulted, 33, 3));
    assert_eq!(rt.task_state(ins[3]), Err(Error::StaleHandle), "winner consumed by the combinator");
    assert_eq!(rt.stats().unwrap().live_tasks, 4);
    for (i, &h) in ins.iter().enumerate() {
        if i != 3 {
            rt.complete(h, TaskState::Succeeded, i as u64, 0, true).unwrap();
        }
    }
    let s = rt.stats().unwrap();
    assert_eq!(s.live_tasks, 0, "losers consumed when they finish");
    assert_eq!(s.when_any[0].live, 0);
    assert_eq!(s.when_any[0].idle, 1);
}

#[test]
fn when_any_with_completed_inputs_picks_first_in_array_order() {
    let rt = Runtime::new(Config::default());
    let ins: Vec<u64> = (0..3).map(|_| rt.create_task().unwrap()).collect();
    rt.complete(ins[2], TaskState::Succeeded, 22, 0, true).unwrap();
    rt.complete(ins[1], TaskState::Succeeded, 11, 0, true).unwrap();
    let any = rt.when_any(&ins, 0).unwrap();
    let o = rt.consume(any).unwrap();
    assert_eq!((o.state, o.value, o.index), (TaskState::Succeeded, 11, 1));
    rt.complete(ins[0], TaskState::Canceled, 0, 0, false).unwrap();
    assert_eq!(rt.stats().unwrap().live_tasks, 0);
}

#[test]
fn combinator_input_validation() {
    let rt = Runtime::new(Config::default());
    let a = rt.create_task().unwrap();
    let b = rt.create_task().unwrap();
    assert_eq!(rt.when_any(&[], 0), Err(Error::CountOutOfRange));
    assert_eq!(rt.when_any(&[a, b, a], 0), Err(Error::DuplicateInput));
    assert_eq!(rt.when_all(&[b, b], 0), Err(Error::DuplicateInput));
    let many: Vec<u64> = (0..40).map(|_| rt.create_task().unwrap()).collect();
    let mut dup = many.clone();
    dup.push(many[17]);
    assert_eq!(rt.when_any(&dup, 0), Err(Error::DuplicateInput));
    let too_many = vec![a; MAX_COMBINATOR_INPUTS as usize + 1];
    assert_eq!(rt.when_any(&too_many, 0), Err(Error::CountOutOfRange));
    assert_eq!(rt.when_any(&[a, 0], 0), Err(Error::InvalidHandle));
    rt.on_complete(b, log_cb, std::ptr::null_mut()).unwrap();
    assert_eq!(rt.when_any(&[a, b], 0), Err(Error::AlreadyAwaited));
    // Nothing changed on error: `a` can still be used.
    let any = rt.when_any(&[a], 0).unwrap();
    assert_eq!(rt.when_all(&[a], 0), Err(Error::AlreadyAwaited));
    rt.complete(a, TaskState::Succeeded, 1, 0, true).unwrap();
    rt.consume(any).unwrap();
    let big = rt.when_all(&many, 0).unwrap();
    for &h in &many {
        rt.complete(h, TaskState::Succeeded, 0, 0, true).unwrap();
    }
    assert_eq!(rt.consume(big).unwrap().value, 40);
    let s = rt.stats().unwrap();
    assert_eq!((s.when_all[2].cold_allocations, s.when_all[2].discards), (1, 1), "large: unpooled");
}

#[test]
fn when_all_waits_for_all_first_error_wins_results_readable() {
    let rt = Runtime::new(Config::default());
    let ins: Vec<u64> = (0..4).map(|_| rt.create_task().unwrap()).collect();
    let all = rt.when_all(&ins, 0).unwrap();
    rt.complete(ins[0], TaskState::Succeeded, 10, 0, true).unwrap();
    rt.complete(ins[2], TaskState::Faulted, 0, 2, true).unwrap();
    rt.complete(ins[1], TaskState::Faulted, 0, 1, true).unwrap();
    assert_eq!(state(&rt, all), TaskState::Pending, "waits for every input");
    let mut res = [Outcome::PENDING; 4];
    assert_eq!(rt.when_all_results(all, &mut res), Err(Error::TaskPending));
    rt.complete(ins[3], TaskState::Succeeded, 13, 0, true).unwrap();
    assert_eq!(state(&rt, all), TaskState::Faulted);
    rt.when_all_results(all, &mut res).unwrap();
    assert_eq!(
        res.map(|o| (o.state, o.value, o.error)),
        [
            (TaskState::Succeeded, 10, 0),
            (TaskState::Faulted, 0, 1),
            (TaskState::Faulted, 0, 2),
            (TaskState::Succeeded, 13, 0),
        ]
    );
    assert_eq!(rt.when_all_results(all, &mut res[..3]), Err(Error::CountOutOfRange));
    let o = rt.consume(all).unwrap();
    assert_eq!((o.state, o.error, o.index), (TaskState::Faulted, 2, 2), "first error in completion order");
    assert_eq!(rt.when_all_results(all, &mut res), Err(Error::StaleHandle));
    let s = rt.stats().unwrap();
    assert_eq!((s.live_tasks, s.when_all[0].live, s.when_all[0].idle), (0, 0, 1));
}

#[test]
fn combinators_cancel_with_their_token() {
    let rt = Runtime::new(Config::default());
    let src = rt.create_cancel_source().unwrap();
    let a: Vec<u64> = (0..3).map(|_| rt.create_task().unwrap()).collect();
    let b: Vec<u64> = (0..3).map(|_| rt.create_task().unwrap()).collect();
    let any = rt.when_any(&a, src).unwrap();
    let all = rt.when_all(&b, src).unwrap();
    rt.complete(b[0], TaskState::Succeeded, 1, 0, true).unwrap();
    rt.cancel(src).unwrap();
    assert_eq!(state(&rt, any), TaskState::Pending, "observed at the next tick or drain");
    rt.drain().unwrap();
    assert_eq!(state(&rt, any), TaskState::Canceled);
    assert_eq!(state(&rt, all), TaskState::Canceled);
    assert_eq!(rt.consume(any).unwrap().index, u32::MAX);
    let mut res = [Outcome::PENDING; 3];
    rt.when_all_results(all, &mut res).unwrap();
    assert_eq!(res.map(|o| o.state), [TaskState::Succeeded, TaskState::Pending, TaskState::Pending]);
    rt.consume(all).unwrap();
    // Inputs keep running and are consumed when they finish.
    assert_eq!(rt.stats().unwrap().live_tasks, 5);
    for &h in a.iter().chain(&b[1..]) {
        rt.complete(h, TaskState::Succeeded, 0, 0, true).unwrap();
    }
    let s = rt.stats().unwrap();
    assert_eq!((s.live_tasks, s.when_any[0].live, s.when_all[0].live), (0, 0, 0));
    // Already-canceled token: completes canceled at once.
    let c = rt.create_task().unwrap();
    let any2 = rt.when_any(&[c], src).unwrap();
    assert_eq!(state(&rt, any2), TaskState::Canceled);
    rt.consume(any2).unwrap();
    rt.complete(c, TaskState::Succeeded, 0, 0, true).unwrap();
    assert_eq!(rt.stats().unwrap().live_tasks, 0);
}
