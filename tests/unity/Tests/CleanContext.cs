using System;
using System.Threading;

namespace Onity.UnityTests
{
    /// <summary>Runs a body on this (the main) thread inside an empty ExecutionContext. Allocation
    /// tests use it: a test before them may leave an AsyncLocal value on the main thread (see
    /// ClassStateMachineTests: a value set after an await stays on the ticking thread), and with
    /// one present every suspension captures the context (about 72 B), which is context flow's
    /// cost, not the measured path's. Unity's main thread has no such value.</summary>
    public static class CleanContext
    {
        static ExecutionContext empty;

        public static void Run(Action body)
        {
            if (empty == null)
            {
                var t = new Thread(() => empty = ExecutionContext.Capture());
                using (ExecutionContext.SuppressFlow()) t.Start();
                t.Join();
            }
            Exception failure = null;
            ExecutionContext.Run(empty.CreateCopy(), _ =>
            {
                try { body(); }
                catch (Exception e) { failure = e; }
            }, null);
            if (failure != null) throw failure;
        }
    }
}
