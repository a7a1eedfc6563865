// Unity.Jobs.JobHandle as an awaitable (UniTask's semantics): a job has no completion event, so the
// handle is polled on the player loop until IsCompleted, then Complete() is called on the main
// thread (Unity requires it to hand the job's data back). The source is pooled: nothing allocated
// per await after warm-up (UniTask allocates one promise per await).
#if UNITY_5_3_OR_NEWER || ONITY_UNITY_STANDIN
using System.Threading;
using Unity.Jobs;

namespace Onity
{
    public static partial class OnityUnityAsyncExtensions
    {
        /// <summary><c>await handle</c>: polled at EarlyUpdate, PreUpdate, Update, PreLateUpdate and
        /// PostLateUpdate (as UniTask's), from the first of them after the point it is awaited at
        /// (awaited in a MonoBehaviour's Update: PreLateUpdate of that frame), so a job done
        /// mid-frame is seen at the next of those points; then <c>Complete()</c> and the
        /// continuation. Owner thread.</summary>
        public static OnityTask.Awaiter GetAwaiter(this JobHandle jobHandle)
        {
            var first = Onity.Unity.OnityPlayerLoop.NextPollTiming(OnityRuntime.Current, JobPollPoints);
            return JobHandleSource.Start(jobHandle, first, Mode.EveryTiming, default(CancellationToken)).GetAwaiter();
        }

        /// <summary>Completes at the first run of <paramref name="waitTiming"/> (from the next one
        /// on) that sees <c>IsCompleted</c>, after calling <c>Complete()</c>. No cancellation (as
        /// UniTask's). Owner thread.</summary>
        public static OnityTask ToOnityTask(this JobHandle jobHandle, OnityTiming waitTiming)
        {
            return JobHandleSource.Start(jobHandle, waitTiming, Mode.OneTiming, default(CancellationToken));
        }

        /// <summary>Waits for the next run of <paramref name="waitTiming"/>, then <c>Complete()</c>s
        /// the job there (blocking the main thread until it is done) and throws
        /// <see cref="System.OperationCanceledException"/> if <paramref name="cancellationToken"/>
        /// was canceled meanwhile (the job is completed either way: its data must not leak).</summary>
        public static OnityTask WaitAsync(this JobHandle jobHandle, OnityTiming waitTiming, CancellationToken cancellationToken = default(CancellationToken))
        {
            return JobHandleSource.Start(jobHandle, waitTiming, Mode.CompleteAtFirstRun, cancellationToken);
        }

        // Where `await handle` polls, in player-loop order (Next cycles through them).
        static readonly OnityTiming[] JobPollPoints = { OnityTiming.EarlyUpdate, OnityTiming.PreUpdate, OnityTiming.Update, OnityTiming.PreLateUpdate, OnityTiming.PostLateUpdate };

        enum Mode : byte { OneTiming, EveryTiming, CompleteAtFirstRun }

        sealed class JobHandleSource : OnityLoopSource<AsyncUnit>
        {
            static readonly OnityObjectPool<JobHandleSource> pool = new OnityObjectPool<JobHandleSource>(256);
            JobHandle handle;
            OnityTiming timing;
            Mode mode;
            CancellationToken ct;

            internal static OnityTask Start(JobHandle handle, OnityTiming timing, Mode mode, CancellationToken ct)
            {
                var s = pool.TryRent() ?? new JobHandleSource();
                s.handle = handle;
                s.timing = timing;
                s.mode = mode;
                s.ct = ct;
                var task = s.UntypedTask;
                s.StartLoopOrRelease(timing);
                return task;
            }

            protected override bool MoveNext()
            {
                if (mode == Mode.CompleteAtFirstRun)
                {
                    handle.Complete();
                    if (ct.IsCancellationRequested) TrySetCanceled(ct);
                    else TrySetResult(default(AsyncUnit));
                    return false;
                }
                if (!handle.IsCompleted)
                {
                    if (mode == Mode.EveryTiming)
                    {
                        timing = Next(timing);
                        SetLoopTiming(timing, false);
                    }
                    return true;
                }
                handle.Complete();
                TrySetResult(default(AsyncUnit));
                return false;
            }

            static OnityTiming Next(OnityTiming t)
            {
                switch (t)
                {
                    case OnityTiming.EarlyUpdate: return OnityTiming.PreUpdate;
                    case OnityTiming.PreUpdate: return OnityTiming.Update;
                    case OnityTiming.Update: return OnityTiming.PreLateUpdate;
                    case OnityTiming.PreLateUpdate: return OnityTiming.PostLateUpdate;
                    default: return OnityTiming.EarlyUpdate;
                }
            }

            // The runtime is gone (play mode ended): complete the job, as UniTask does when the
            // editor quits, so its data is not left with a worker.
            protected override void OnLoopCanceled()
            {
                handle.Complete();
                TrySetResult(default(AsyncUnit));
            }

            protected override void Release()
            {
                handle = default(JobHandle);
                ct = default(CancellationToken);
                pool.Return(this);
            }
        }
    }
}
#endif
