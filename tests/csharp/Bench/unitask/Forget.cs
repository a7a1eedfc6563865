// Replaces UniTask's UniTaskExtensions.Forget(UniTask) in the benchmark build (UniTaskExtensions.cs
// does not compile with mcs): AsyncReactiveProperty's enumerators call it when disposed or
// canceled, never on a measured path. Same behaviour: an exception goes to UniTaskScheduler.
using System;

namespace Cysharp.Threading.Tasks
{
    public static class UniTaskForgetShim
    {
        public static void Forget(this UniTask task)
        {
            var awaiter = task.GetAwaiter();
            if (awaiter.IsCompleted)
            {
                try { awaiter.GetResult(); }
                catch (Exception ex) { UniTaskScheduler.PublishUnobservedTaskException(ex); }
            }
            else
            {
                awaiter.SourceOnCompleted(s =>
                {
                    try { ((UniTask.Awaiter)s).GetResult(); }
                    catch (Exception ex) { UniTaskScheduler.PublishUnobservedTaskException(ex); }
                }, awaiter);
            }
        }
    }
}
