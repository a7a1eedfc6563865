// A minimal job system: worker threads run jobs and complete the native task each job was given,
// from the worker (Runtime::set_result is callable from any thread). A coroutine on the owner
// thread awaits the task; the runtime resumes it in its next tick on the owner.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include <onity/coro.hpp>

class JobSystem {
  public:
    JobSystem(onity::Runtime &rt, unsigned workers) : rt_(rt) {
        for (unsigned i = 0; i < workers; i++) threads_.emplace_back([this] { work(); });
    }
    ~JobSystem() { shutdown(); }

    // Owner thread: makes the task the job completes with its result; co_await it.
    onity::Task submit(std::function<uint64_t()> job) {
        onity::Task t = rt_.create_task().unwrap();
        {
            std::lock_guard<std::mutex> lock(mutex_);
            queue_.push_back(Job{std::move(job), t});
            submitted_++;
        }
        wake_.notify_one();
        return t;
    }

    // Runs what is queued, then joins the workers: before the runtime is destroyed, so that no
    // worker completes a task of a destroyed runtime.
    void shutdown() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stopping_ = true;
        }
        wake_.notify_all();
        for (std::thread &t : threads_) t.join();
        threads_.clear();
    }

    uint64_t submitted() const { std::lock_guard<std::mutex> l(mutex_); return submitted_; }
    uint64_t completed_off_owner() const { std::lock_guard<std::mutex> l(mutex_); return completed_; }

  private:
    struct Job {
        std::function<uint64_t()> run;
        onity::Task task;
    };

    void work() {
        for (;;) {
            Job job;
            {
                std::unique_lock<std::mutex> lock(mutex_);
                wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
                if (queue_.empty()) return;
                job = std::move(queue_.front());
                queue_.pop_front();
            }
            uint64_t value = job.run();
            bool ok = rt_.set_result(job.task, value).ok();  // cross-thread completion
            std::lock_guard<std::mutex> lock(mutex_);
            completed_ += ok ? 1 : 0;
        }
    }

    onity::Runtime &rt_;
    std::vector<std::thread> threads_;
    mutable std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<Job> queue_;
    bool stopping_ = false;
    uint64_t submitted_ = 0, completed_ = 0;
};
