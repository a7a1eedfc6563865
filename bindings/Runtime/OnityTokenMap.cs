using System;
using System.Collections.Generic;
using System.Threading;
using Onity.Native;

namespace Onity
{
    /// <summary>Token mapping: each <see cref="CancellationToken"/> waits are scheduled with maps
    /// to one native cancellation source, canceled from the token's registration (any thread).
    /// Entries are counted by the wait slots holding them; an entry nobody holds stays warm for
    /// two frames (loops awaiting with the same token reuse it), then the frame driver's sweep
    /// destroys it. Owner thread, except the cancellation callback.</summary>
    internal sealed unsafe class OnityTokenMap
    {
        internal sealed class Entry
        {
            public IntPtr rt;
            public ulong source;
            public CancellationToken ct;
            public CancellationTokenRegistration registration;
            public int refs;
            public bool idle;
            public bool listed; // in idle (once: an entry reused and released again is not re-added)
            public bool destroyed;
            public ulong idleFrame;
            public OnityTokenMap map;
        }

        /// <summary>Mono's CancellationToken is not IEquatable: the default comparer would box it on
        /// every lookup (24 bytes per wait with a token).</summary>
        sealed class TokenComparer : IEqualityComparer<CancellationToken>
        {
            internal static readonly TokenComparer Instance = new TokenComparer();
            public bool Equals(CancellationToken x, CancellationToken y) { return x.Equals(y); }
            public int GetHashCode(CancellationToken t) { return t.GetHashCode(); }
        }

        static readonly Action<object> cancelNative = CancelNative;

        readonly IntPtr rt;
        int cancels;
        readonly Dictionary<CancellationToken, Entry> tokens = new Dictionary<CancellationToken, Entry>(TokenComparer.Instance);
        readonly List<Entry> idle = new List<Entry>();

        internal OnityTokenMap(IntPtr runtime) { rt = runtime; }

        /// <summary>Tokens mapped (each with its native source).</summary>
        internal int Count { get { return tokens.Count; } }

        /// <summary>Entries in the idle list (tests: it holds each entry once).</summary>
        internal int IdleListCount { get { return idle.Count; } }

        internal bool HasIdle { get { return idle.Count != 0; } }

        /// <summary>Mapped tokens canceled so far (any thread): the frame driver compares it before
        /// and after a timing's continuations, to run the native canceled-only pass of that run.</summary>
        internal int Cancels { get { return Volatile.Read(ref cancels); } }

        /// <summary>The native token of <paramref name="ct"/>, mapped on first use; counts one more
        /// holder of <paramref name="e"/> (give it back with <see cref="Release"/>).</summary>
        internal ulong Acquire(CancellationToken ct, out Entry e)
        {
            if (!tokens.TryGetValue(ct, out e))
            {
                ulong src;
                OnityRuntime.Check(OnityNativeCalls.onity_cancel_source_create(rt, &src), "onity_cancel_source_create");
                e = new Entry { rt = rt, source = src, ct = ct, map = this };
                try { e.registration = ct.Register(cancelNative, e); }
                catch
                {
                    // Register may throw (ObjectDisposedException for a disposed source on .NET
                    // Framework; Mono 6.8 does not): keep nothing, so the same token fails the
                    // same way next time instead of leaving an entry nobody sweeps.
                    OnityNativeCalls.onity_cancel_source_destroy(rt, src);
                    e = null;
                    throw;
                }
                tokens.Add(ct, e);
            }
            e.refs++;
            e.idle = false;
            return e.source;
        }

        static void CancelNative(object o)
        {
            var e = (Entry)o;
            lock (e)
            {
                if (!e.destroyed) OnityNativeCalls.onity_cancel_source_cancel(e.rt, e.source);
            }
            Interlocked.Increment(ref e.map.cancels);
        }

        /// <summary>One holder fewer; an entry nobody holds goes to the idle list, stamped with
        /// <paramref name="frame"/>.</summary>
        internal void Release(Entry e, ulong frame)
        {
            if (--e.refs == 0 && !e.idle)
            {
                e.idle = true;
                e.idleFrame = frame;
                if (!e.listed)
                {
                    e.listed = true;
                    idle.Add(e);
                }
            }
        }

        /// <summary>Destroys the entries idle since two frames before <paramref name="frame"/>
        /// (and drops from the list the ones held again).</summary>
        internal void Sweep(ulong frame)
        {
            for (int i = idle.Count - 1; i >= 0; i--)
            {
                var e = idle[i];
                if (!e.idle || e.refs != 0)
                {
                    e.idle = false;
                    e.listed = false;
                    idle.RemoveAt(i);
                    continue;
                }
                if (frame < e.idleFrame + 2) continue; // keep it warm for loops awaiting with the same token
                e.listed = false;
                idle.RemoveAt(i);
                Destroy(e, true);
                tokens.Remove(e.ct);
            }
        }

        /// <summary>Runtime disposal: every registration is removed; the native sources go with
        /// the native runtime.</summary>
        internal void DestroyAll()
        {
            foreach (var e in tokens.Values) Destroy(e, false);
            tokens.Clear();
            idle.Clear();
        }

        void Destroy(Entry e, bool destroyNative)
        {
            lock (e) { e.destroyed = true; }
            e.registration.Dispose();
            if (destroyNative) OnityNativeCalls.onity_cancel_source_destroy(rt, e.source);
        }
    }
}
