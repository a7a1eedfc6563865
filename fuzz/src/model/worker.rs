//! A worker thread the operations run calls on, one at a time: the owner
//! waits for each call's result, so a run stays deterministic while the
//! runtime sees a thread that is not its owner (and that it may never have
//! seen before).

use std::sync::mpsc::{channel, Receiver, Sender};
use std::thread::JoinHandle;

type Job = Box<dyn FnOnce() + Send>;

pub struct Worker {
    jobs: Option<Sender<Job>>,
    thread: Option<JoinHandle<()>>,
}

impl Worker {
    pub fn new() -> Worker {
        let (tx, rx): (Sender<Job>, Receiver<Job>) = channel();
        let thread = std::thread::Builder::new()
            .name("onity-fuzz-worker".into())
            .spawn(move || {
                while let Ok(job) = rx.recv() {
                    job();
                }
            })
            .expect("spawn the worker thread");
        Worker { jobs: Some(tx), thread: Some(thread) }
    }

    /// Runs `f` on the worker and returns its result.
    pub fn call<R: Send + 'static>(&self, f: impl FnOnce() -> R + Send + 'static) -> R {
        let (tx, rx) = channel();
        let job: Job = Box::new(move || {
            let _ = tx.send(f());
        });
        self.jobs.as_ref().expect("worker running").send(job).expect("worker alive");
        rx.recv().expect("the worker panicked")
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        drop(self.jobs.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
