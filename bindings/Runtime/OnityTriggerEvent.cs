using System;
using System.Threading;

namespace Onity
{
    /// <summary>A handler of an <see cref="OnityTriggerEvent{T}"/> (UniTask's <c>ITriggerHandler</c>).
    /// <see cref="Prev"/> / <see cref="Next"/> are the event's links (an intrusive list: adding a
    /// handler allocates nothing); leave them to the event.</summary>
    public interface IOnityTriggerHandler<T>
    {
        void OnNext(T value);
        void OnError(Exception ex);
        void OnCompleted();
        void OnCanceled(CancellationToken cancellationToken);
        IOnityTriggerHandler<T> Prev { get; set; }
        IOnityTriggerHandler<T> Next { get; set; }
    }

    /// <summary>A list of handlers to call (UniTask's <c>TriggerEvent</c>): a mutable struct, keep
    /// it in a field and call it there (a copy is another list). Owner thread, no allocation.
    /// <list type="bullet">
    /// <item><see cref="SetResult"/> calls <c>OnNext</c> of each handler added before it started, in
    /// order; one added meanwhile is called from the next value on, one removed meanwhile is not
    /// called. A handler's exception goes to <see cref="OnityTask.UnobservedTaskException"/> and
    /// the others are still called.</item>
    /// <item><see cref="SetCompleted"/>, <see cref="SetError"/>, <see cref="SetCanceled"/> call
    /// the terminal method of every handler and remove them all; the event stays usable: handlers
    /// added afterwards receive the later values.</item>
    /// </list></summary>
    public struct OnityTriggerEvent<T>
    {
        IOnityTriggerHandler<T> head, tail;           // the handlers
        IOnityTriggerHandler<T> addedHead, addedTail; // added while SetResult runs: joined after it
        IOnityTriggerHandler<T> iterNext;             // SetResult's next handler
        int depth;                                    // SetResult nesting
        int ends, removals;                           // End / Remove calls (a nested pass's changes)

        /// <summary>True when at least one handler is added.</summary>
        public bool HasHandlers { get { return head != null || addedHead != null; } }

        /// <summary>Adds <paramref name="handler"/> (at the end). A handler is in one event at a time.</summary>
        public void Add(IOnityTriggerHandler<T> handler)
        {
            if (handler == null) throw new ArgumentNullException("handler");
            if (handler.Prev != null || handler.Next != null || ReferenceEquals(handler, head) || ReferenceEquals(handler, addedHead))
                throw new InvalidOperationException("Onity: this handler is already added to an OnityTriggerEvent (remove it first).");
            if (depth > 0) Append(ref addedHead, ref addedTail, handler);
            else Append(ref head, ref tail, handler);
        }

        /// <summary>Removes <paramref name="handler"/>; nothing when it is not added. A handler may
        /// remove itself or another from its <c>OnNext</c>.</summary>
        public void Remove(IOnityTriggerHandler<T> handler)
        {
            if (handler == null) throw new ArgumentNullException("handler");
            var first = First(handler);
            if (first == null) return;
            removals++;
            if (ReferenceEquals(first, head))
            {
                if (ReferenceEquals(handler, iterNext)) iterNext = handler.Next;
                Unlink(ref head, ref tail, handler);
            }
            else if (ReferenceEquals(first, addedHead)) Unlink(ref addedHead, ref addedTail, handler);
        }

        /// <summary>Calls <c>OnNext(value)</c> of each handler (see the type's remarks).</summary>
        public void SetResult(T value)
        {
            var saved = iterNext;
            depth++;
            try
            {
                var n = head;
                int e = ends;
                while (n != null)
                {
                    iterNext = n.Next;
                    int r = removals;
                    try { n.OnNext(value); }
                    catch (Exception ex) { OnityTask.PublishUnobserved(ex); }
                    if (ends != e) break; // a terminal (maybe in a nested pass) ended these handlers
                    var cur = n;
                    n = iterNext;
                    // A nested pass's Remove updated its own next, not this one: when this next
                    // left the list, go on after the current handler (stop if it left too).
                    if (removals != r && n != null && !InHandlers(n)) n = InHandlers(cur) ? cur.Next : null;
                }
            }
            finally
            {
                iterNext = saved;
                if (--depth == 0 && addedHead != null)
                {
                    // Join the handlers added during the call.
                    var a = addedHead;
                    var at = addedTail;
                    addedHead = addedTail = null;
                    if (tail == null) head = a;
                    else
                    {
                        tail.Next = a;
                        a.Prev = tail;
                    }
                    tail = at;
                }
            }
        }

        /// <summary>Calls <c>OnCompleted</c> of every handler and removes them all.</summary>
        public void SetCompleted() { End(0, null, default(CancellationToken)); }

        /// <summary>Calls <c>OnError(exception)</c> of every handler and removes them all.</summary>
        public void SetError(Exception exception) { End(1, exception, default(CancellationToken)); }

        /// <summary>Calls <c>OnCanceled(cancellationToken)</c> of every handler and removes them all.</summary>
        public void SetCanceled(CancellationToken cancellationToken) { End(2, null, cancellationToken); }

        void End(int kind, Exception error, CancellationToken ct)
        {
            var n = head;
            var a = addedHead;
            head = tail = addedHead = addedTail = null;
            iterNext = null; // a SetResult in progress stops (a nested one's callers too: ends)
            ends++;
            if (n == null)
            {
                n = a;
                a = null;
            }
            while (n != null)
            {
                var next = n.Next;
                if (next == null)
                {
                    next = a;
                    a = null;
                }
                n.Prev = null;
                n.Next = null;
                try
                {
                    if (kind == 0) n.OnCompleted();
                    else if (kind == 1) n.OnError(error);
                    else n.OnCanceled(ct);
                }
                catch (Exception ex) { OnityTask.PublishUnobserved(ex); }
                n = next;
            }
        }

        static void Append(ref IOnityTriggerHandler<T> h, ref IOnityTriggerHandler<T> t, IOnityTriggerHandler<T> node)
        {
            if (t == null) h = node;
            else
            {
                t.Next = node;
                node.Prev = t;
            }
            t = node;
        }

        static void Unlink(ref IOnityTriggerHandler<T> h, ref IOnityTriggerHandler<T> t, IOnityTriggerHandler<T> node)
        {
            var p = node.Prev;
            var x = node.Next;
            if (p == null) h = x;
            else p.Next = x;
            if (x == null) t = p;
            else x.Prev = p;
            node.Prev = null;
            node.Next = null;
        }

        /// <summary>True when <paramref name="node"/> is in the handlers (not removed, not added
        /// during the current SetResult).</summary>
        bool InHandlers(IOnityTriggerHandler<T> node)
        {
            var f = First(node);
            return f != null && ReferenceEquals(f, head);
        }

        /// <summary>The first node of the list holding <paramref name="node"/> (walking back), or
        /// null when it is in no list of this event.</summary>
        IOnityTriggerHandler<T> First(IOnityTriggerHandler<T> node)
        {
            var n = node;
            while (n.Prev != null) n = n.Prev;
            if (ReferenceEquals(n, head) || ReferenceEquals(n, addedHead)) return n;
            return null;
        }
    }
}
