using System;
using System.Threading;

namespace Onity.Tests
{
    /// <summary>OnityAsyncEvent is used on one thread: the runtime's owner thread, or without a
    /// runtime the first thread that used the event. Every entry point refuses another thread with
    /// <see cref="InvalidOperationException"/> before it changes anything (so no value or end can
    /// be delivered twice to a stream by two threads).</summary>
    public class AsyncEventThreadTests
    {
        /// <summary>What <paramref name="call"/> threw on another thread (null: nothing).</summary>
        static Exception OnAnotherThread(Action call)
        {
            Exception caught = null;
            var t = new Thread(() =>
            {
                try { call(); }
                catch (Exception e) { caught = e; }
            });
            t.Start();
            t.Join();
            return caught;
        }

        static void AssertRefused(Exception e, string what)
        {
            Assert.True(e is InvalidOperationException, what + " on another thread is refused: " + e);
            Assert.True(e.Message.Contains("thread"), what + ": the message names the thread rule: " + e.Message);
        }

        [Test]
        public void WithoutARuntime_TheFirstThreadOwnsTheEvent_AnotherIsRefused()
        {
            TestHost.Cleanup();
            Assert.True(OnityRuntime.Current == null, "no runtime");
            var ev = new OnityAsyncEvent<int>();
            var e = ev.GetAsyncEnumerator();
            var next = e.MoveNextAsync();
            AssertRefused(OnAnotherThread(() => ev.Raise(1)), "Raise");
            AssertRefused(OnAnotherThread(() => e.DisposeAsync()), "DisposeAsync");
            AssertRefused(OnAnotherThread(() => ev.Complete()), "Complete");
            AssertRefused(OnAnotherThread(() => ev.NextAsync()), "NextAsync");
            AssertRefused(OnAnotherThread(() => ev.GetAsyncEnumerator()), "GetAsyncEnumerator");
            AssertRefused(OnAnotherThread(() => new OnityAsyncEventHandler<int>(ev, CancellationToken.None, false)), "a handler");
            Assert.Equal(OnityTaskStatus.Pending, next.Status, "nothing changed by the refused calls");
            Assert.Equal(1, ev.SubscriberCount, "still subscribed");
            ev.Raise(5);
            Assert.True(next.GetAwaiter().GetResult(), "the owner's Raise delivers");
            Assert.Equal(5, e.Current, "its value");
            e.DisposeAsync().GetAwaiter().GetResult();
            Assert.Equal(0, ev.SubscriberCount, "disposed by the owner");

            // Another event: owned by the first thread that uses it.
            var other = new OnityAsyncEvent<int>();
            Assert.True(OnAnotherThread(() => other.Raise(1)) == null, "another event: its first user (a worker) owns it");
            Exception onThisThread = null;
            try { other.Raise(2); }
            catch (Exception ex) { onThisThread = ex; }
            AssertRefused(onThisThread, "Raise by a thread that did not use the event first");
        }

        [Test]
        public void WithoutARuntime_OnlyTheOwnerRaises_ARacingDisposeIsRefused()
        {
            // The race of the defect: Raise on one thread, DisposeAsync on another, on a stream with
            // a pending MoveNextAsync. Every round one of them is refused; the stream completes once.
            TestHost.Cleanup();
            for (int i = 0; i < 200; i++)
            {
                var ev = new OnityAsyncEvent<int>();
                var e = ev.GetAsyncEnumerator();
                var next = e.MoveNextAsync();
                int resumed = 0;
                next.GetAwaiter().UnsafeOnCompleted(() => Interlocked.Increment(ref resumed));
                Exception disposeError = null;
                var t = new Thread(() =>
                {
                    try { e.DisposeAsync(); }
                    catch (Exception ex) { disposeError = ex; }
                });
                t.Start();
                ev.Raise(i);
                t.Join();
                AssertRefused(disposeError, "DisposeAsync racing the owner's Raise");
                Assert.Equal(1, Volatile.Read(ref resumed), "resumed once (" + i + ")");
                Assert.True(next.GetAwaiter().GetResult(), "the value (" + i + ")");
            }
        }

        [Test]
        public void MoveNextAsyncOnAnotherThreadThrows_TheStreamGoesOn()
        {
            using (var h = new TestHost())
            {
                var ev = new OnityAsyncEvent<int>();
                var e = ev.GetAsyncEnumerator();
                AssertRefused(OnAnotherThread(() => e.MoveNextAsync()), "MoveNextAsync");
                var next = e.MoveNextAsync();
                AssertRefused(OnAnotherThread(() => e.MoveNextAsync()), "MoveNextAsync while one is pending");
                ev.Raise(3);
                Assert.True(next.GetAwaiter().GetResult(), "the owner's MoveNextAsync got the value");
                Assert.Equal(3, e.Current, "value");

                // A reactive property's enumerator: its first MoveNextAsync (the current value) too.
                var prop = new OnityAsyncReactiveProperty<int>(7);
                var pe = prop.GetAsyncEnumerator();
                AssertRefused(OnAnotherThread(() => pe.MoveNextAsync()), "a reactive property's first MoveNextAsync");
                Assert.True(pe.MoveNextAsync().GetAwaiter().GetResult(), "the current value first");
                Assert.Equal(7, pe.Current, "current value");
                AssertRefused(OnAnotherThread(() => pe.MoveNextAsync()), "a reactive property's MoveNextAsync");
                var pn = pe.MoveNextAsync();
                prop.Value = 8;
                Assert.True(pn.GetAwaiter().GetResult(), "the next value");
                Assert.Equal(8, pe.Current, "next value");
                pe.DisposeAsync().GetAwaiter().GetResult();
                e.DisposeAsync().GetAwaiter().GetResult();
            }
        }
    }
}
