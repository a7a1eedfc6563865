using System;
using System.Collections.Generic;
using System.Threading;

namespace Onity
{
    /// <summary>IObservable and tasks (UniTask's UniTaskObservableExtensions).</summary>
    public static class OnityTaskObservableExtensions
    {
        /// <summary>A task of the observable's first value (<paramref name="useFirstValue"/>, then
        /// unsubscribed) or its last value at OnCompleted; faulted by OnError, by
        /// InvalidOperationException when it completes without a value; canceled (and
        /// unsubscribed) by <paramref name="cancellationToken"/>.</summary>
        public static OnityTask<T> ToOnityTask<T>(this IObservable<T> source, bool useFirstValue = false, CancellationToken cancellationToken = default(CancellationToken))
        {
            if (source == null) throw new ArgumentNullException("source");
            if (cancellationToken.IsCancellationRequested) return OnityTask.FromCanceled<T>(cancellationToken);
            var observer = new TaskObserver<T>(useFirstValue, cancellationToken);
            var subscription = source.Subscribe(observer);
            observer.Attach(subscription);
            return observer.Task;
        }

        sealed class TaskObserver<T> : IObserver<T>
        {
            readonly OnityCompletionSource<T> done = new OnityCompletionSource<T>();
            readonly bool useFirstValue;
            readonly CancellationTokenRegistration registration;
            IDisposable subscription;
            bool hasValue, ended;
            T latest;

            internal TaskObserver(bool useFirstValue, CancellationToken ct)
            {
                this.useFirstValue = useFirstValue;
                if (ct.CanBeCanceled) registration = ct.Register(() => { if (done.TrySetCanceled(ct)) Unsubscribe(); });
            }

            internal OnityTask<T> Task { get { return done.Task; } }

            internal void Attach(IDisposable s)
            {
                lock (this)
                {
                    if (!ended) { subscription = s; return; }
                }
                if (s != null) s.Dispose(); // it ended during Subscribe
            }

            void Unsubscribe()
            {
                IDisposable s;
                lock (this)
                {
                    ended = true;
                    s = subscription;
                    subscription = null;
                }
                registration.Dispose();
                if (s != null) s.Dispose();
            }

            public void OnNext(T value)
            {
                if (useFirstValue)
                {
                    if (done.TrySetResult(value)) Unsubscribe();
                    return;
                }
                hasValue = true;
                latest = value;
            }

            public void OnError(Exception error)
            {
                done.TrySetException(error);
                Unsubscribe();
            }

            public void OnCompleted()
            {
                if (hasValue) done.TrySetResult(latest);
                else done.TrySetException(new InvalidOperationException("Onity: the observable completed without a value."));
                Unsubscribe();
            }
        }

        /// <summary>An observable of the task's outcome: the task is awaited once; each observer
        /// (also one subscribing later) gets its value then OnCompleted, or OnError.</summary>
        public static IObservable<T> ToObservable<T>(this OnityTask<T> task)
        {
            var o = new TaskObservable<T>();
            o.Run(task).Forget();
            return o;
        }

        /// <summary>As <see cref="ToObservable{T}(OnityTask{T})"/>, the value being AsyncUnit.Default.</summary>
        public static IObservable<AsyncUnit> ToObservable(this OnityTask task)
        {
            var o = new TaskObservable<AsyncUnit>();
            o.RunUnit(task).Forget();
            return o;
        }

        sealed class TaskObservable<T> : IObservable<T>
        {
            readonly List<IObserver<T>> observers = new List<IObserver<T>>();
            bool completed;
            T value;
            Exception error;

            internal async OnityTask Run(OnityTask<T> task)
            {
                try { Finish(await task, null); }
                catch (Exception ex) { Finish(default(T), ex); }
            }

            internal async OnityTask RunUnit(OnityTask task)
            {
                try
                {
                    await task;
                    Finish((T)(object)AsyncUnit.Default, null);
                }
                catch (Exception ex) { Finish(default(T), ex); }
            }

            void Finish(T v, Exception ex)
            {
                IObserver<T>[] now;
                lock (observers)
                {
                    value = v;
                    error = ex;
                    completed = true;
                    now = observers.ToArray();
                    observers.Clear();
                }
                foreach (var o in now) Push(o);
            }

            void Push(IObserver<T> o)
            {
                if (error != null) o.OnError(error);
                else
                {
                    o.OnNext(value);
                    o.OnCompleted();
                }
            }

            public IDisposable Subscribe(IObserver<T> observer)
            {
                if (observer == null) throw new ArgumentNullException("observer");
                lock (observers)
                {
                    if (!completed)
                    {
                        observers.Add(observer);
                        return new Unsubscriber(this, observer);
                    }
                }
                Push(observer);
                return Unsubscriber.None;
            }

            sealed class Unsubscriber : IDisposable
            {
                internal static readonly Unsubscriber None = new Unsubscriber(null, null);
                readonly TaskObservable<T> owner;
                readonly IObserver<T> observer;
                internal Unsubscriber(TaskObservable<T> owner, IObserver<T> observer) { this.owner = owner; this.observer = observer; }
                public void Dispose()
                {
                    if (owner == null) return;
                    lock (owner.observers) owner.observers.Remove(observer);
                }
            }
        }
    }
}
