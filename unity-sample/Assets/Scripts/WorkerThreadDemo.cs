using System;
using System.Threading;
using Onity.Unity;
using UnityEngine;

namespace Onity.Samples.Demo
{
    /// <summary>Completes tasks from worker threads: a managed completion source and a native
    /// task set from the thread pool, and a hop to the thread pool and back. Every continuation
    /// must come back on the main thread.</summary>
    public sealed class WorkerThreadDemo : MonoBehaviour
    {
        [SerializeField] int everyFrames = 10;
        int mainThreadId;

        void Awake() { mainThreadId = Thread.CurrentThread.ManagedThreadId; }

        void Update()
        {
            if (Time.frameCount % everyFrames != 0) return;
            RoundTrip(destroyCancellationToken).Forget();
        }

        // (No early `return;` here: Mono's mcs, which verifies these scripts outside Unity, rejects
        // a bare return in an async method returning a custom task type; Unity's compiler accepts it.)
        async OnityTask RoundTrip(CancellationToken ct)
        {
            // 1. A managed completion source completed by a worker.
            var src = new OnityCompletionSource<int>();
            ThreadPool.QueueUserWorkItem(_ =>
            {
                int sum = 0;
                for (int i = 0; i < 10000; i++) sum += i & 7;
                src.TrySetResult(sum);
            });
            await src.Task;
            var rt = OnityPlayerLoop.Runtime;
            if (CheckMain() && rt != null)
            {
                DemoStats.WorkerRoundTrips++;

                // 2. A native task completed through the C ABI from a worker.
                var native = rt.CreateNativeCompletionSource();
                ulong handle = native.Handle;
                ThreadPool.QueueUserWorkItem(_ => rt.NativeSetResult(handle, 42));
                ulong value = await native.Task;
                if (CheckMain())
                {
                    if (value == 42) DemoStats.NativeRoundTrips++;

                    // 3. Off to the thread pool for some work, then back.
                    await OnityTask.SwitchToThreadPool();
                    Thread.Sleep(1);
                    bool back = true;
                    try { await OnityTask.SwitchToMainThread(ct); }
                    catch (InvalidOperationException)
                    {
                        // Play Mode ended while this ran on the pool: there is no main-thread
                        // runtime to return to any more.
                        if (OnityPlayerLoop.Runtime != null) throw;
                        back = false;
                    }
                    if (back && CheckMain()) DemoStats.ThreadHops++;
                }
            }
        }

        bool CheckMain()
        {
            if (Thread.CurrentThread.ManagedThreadId == mainThreadId) return true;
            // Only legitimate while Play Mode is being torn down (no runtime to post to).
            if (OnityPlayerLoop.Runtime != null)
            {
                DemoStats.OffMainThreadResumes++;
                Debug.LogError("Onity demo: resumed off the main thread");
            }
            return false;
        }
    }
}
