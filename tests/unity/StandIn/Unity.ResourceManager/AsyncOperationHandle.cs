// Test-only stand-in of the Addressables operation handles (com.unity.addressables 1.21.x,
// Runtime/ResourceManager/AsyncOperations/AsyncOperationHandle.cs and AsyncOperationStatus;
// assembly Unity.ResourceManager): the public members of AsyncOperationHandle and
// AsyncOperationHandle<TObject> the package and its tests use. A handle refers to a simulated
// operation (StandInOperation, not Unity API) by version: releasing the last reference bumps the
// version and every handle to it turns invalid, as in Addressables. Completed added on a done
// operation is deferred to the LateUpdate of the frame (ResourceManager's deferred callbacks).
// Never shipped.
using System;
using System.Collections;
using System.Collections.Generic;
using System.Runtime.CompilerServices;

[assembly: InternalsVisibleTo("OnityUnityTests")]
[assembly: InternalsVisibleTo("Unity.Addressables")]

namespace UnityEngine.ResourceManagement.AsyncOperations
{
    public enum AsyncOperationStatus
    {
        None,
        Succeeded,
        Failed
    }

    public struct AsyncOperationHandle<TObject> : IEnumerator, IEquatable<AsyncOperationHandle<TObject>>
    {
        internal StandInOperation m_InternalOp;
        int m_Version;

        internal AsyncOperationHandle(StandInOperation op, int version)
        {
            m_InternalOp = op;
            m_Version = version;
        }

        public static implicit operator AsyncOperationHandle(AsyncOperationHandle<TObject> obj)
        {
            return new AsyncOperationHandle(obj.m_InternalOp, obj.m_Version);
        }

        public event Action<AsyncOperationHandle<TObject>> Completed
        {
            add { InternalOp.AddTyped(value); }
            remove { InternalOp.RemoveTyped(value); }
        }

        public event Action<AsyncOperationHandle> CompletedTypeless
        {
            add { InternalOp.AddTypeless(value); }
            remove { InternalOp.RemoveTypeless(value); }
        }

        public bool Equals(AsyncOperationHandle<TObject> other) { return m_Version == other.m_Version && m_InternalOp == other.m_InternalOp; }

        public override int GetHashCode() { return m_InternalOp == null ? 0 : m_InternalOp.GetHashCode() * 17 + m_Version; }

        StandInOperation InternalOp
        {
            get
            {
                if (m_InternalOp == null || m_InternalOp.m_Version != m_Version)
                    throw new Exception("Attempting to use an invalid operation handle");
                return m_InternalOp;
            }
        }

        public bool IsDone { get { return !IsValid() || InternalOp.m_IsDone; } }

        public bool IsValid() { return m_InternalOp != null && m_InternalOp.m_Version == m_Version; }

        public Exception OperationException { get { return InternalOp.m_Exception; } }

        public float PercentComplete { get { return InternalOp.m_Percent; } }

        public TObject Result { get { return (TObject)InternalOp.m_Result; } }

        public AsyncOperationStatus Status { get { return InternalOp.m_Status; } }

        object IEnumerator.Current { get { return Result; } }
        bool IEnumerator.MoveNext() { return !IsDone; }
        void IEnumerator.Reset() { }
    }

    public struct AsyncOperationHandle : IEnumerator
    {
        internal StandInOperation m_InternalOp;
        int m_Version;

        internal AsyncOperationHandle(StandInOperation op, int version)
        {
            m_InternalOp = op;
            m_Version = version;
        }

        public event Action<AsyncOperationHandle> Completed
        {
            add { InternalOp.AddTypeless(value); }
            remove { InternalOp.RemoveTypeless(value); }
        }

        public AsyncOperationHandle<T> Convert<T>() { return new AsyncOperationHandle<T>(InternalOp, m_Version); }

        public bool Equals(AsyncOperationHandle other) { return m_Version == other.m_Version && m_InternalOp == other.m_InternalOp; }

        public override int GetHashCode() { return m_InternalOp == null ? 0 : m_InternalOp.GetHashCode() * 17 + m_Version; }

        StandInOperation InternalOp
        {
            get
            {
                if (m_InternalOp == null || m_InternalOp.m_Version != m_Version)
                    throw new Exception("Attempting to use an invalid operation handle");
                return m_InternalOp;
            }
        }

        public bool IsDone { get { return !IsValid() || InternalOp.m_IsDone; } }

        public bool IsValid() { return m_InternalOp != null && m_InternalOp.m_Version == m_Version; }

        public Exception OperationException { get { return InternalOp.m_Exception; } }

        public float PercentComplete { get { return InternalOp.m_Percent; } }

        public object Result { get { return InternalOp.m_Result; } }

        public AsyncOperationStatus Status { get { return InternalOp.m_Status; } }

        object IEnumerator.Current { get { return Result; } }
        bool IEnumerator.MoveNext() { return !IsDone; }
        void IEnumerator.Reset() { }
    }

    /// <summary>A simulated operation (not Unity API): finished by the test (StandInComplete /
    /// StandInFail), or by the simulated ResourceManager.Update after a number of frames.</summary>
    internal sealed class StandInOperation
    {
        internal int m_Version;
        internal int m_RefCount = 1;
        internal bool m_IsDone;
        internal AsyncOperationStatus m_Status;
        internal Exception m_Exception;
        internal float m_Percent;
        internal object m_Result;
        internal object m_PendingResult; // what StandInComplete gives when the frames run out
        internal int m_FramesLeft = -1;  // -1: finished only by the test
        internal int m_Releases;         // Addressables.Release calls that reached it
        bool m_Invoking;
        // Capacity up front: Addressables keeps its callbacks in pooled nodes (no allocation per add).
        readonly List<Action<AsyncOperationHandle>> m_Typeless = new List<Action<AsyncOperationHandle>>(4);
        readonly List<Delegate> m_Typed = new List<Delegate>();
        readonly List<Action<StandInOperation>> m_TypedInvokers = new List<Action<StandInOperation>>();

        static readonly List<StandInOperation> running = new List<StandInOperation>();
        static readonly List<KeyValuePair<StandInOperation, Action<AsyncOperationHandle>>> deferred = new List<KeyValuePair<StandInOperation, Action<AsyncOperationHandle>>>();

        internal static AsyncOperationHandle<T> Start<T>(int frames = -1, T result = default(T))
        {
            var op = new StandInOperation { m_FramesLeft = frames, m_PendingResult = result };
            if (frames >= 0) running.Add(op);
            return new AsyncOperationHandle<T>(op, op.m_Version);
        }

        internal int TypelessCount { get { return m_Typeless.Count; } }

        internal void AddTypeless(Action<AsyncOperationHandle> a)
        {
            if (m_IsDone) deferred.Add(new KeyValuePair<StandInOperation, Action<AsyncOperationHandle>>(this, a));
            else m_Typeless.Add(a);
        }

        internal void RemoveTypeless(Action<AsyncOperationHandle> a)
        {
            // During the completion's invocation (a callback removing itself): cleared in place.
            int i = m_Typeless.IndexOf(a);
            if (i < 0) return;
            if (m_Invoking) m_Typeless[i] = null;
            else m_Typeless.RemoveAt(i);
        }

        internal void AddTyped<T>(Action<AsyncOperationHandle<T>> a)
        {
            if (m_IsDone)
            {
                deferred.Add(new KeyValuePair<StandInOperation, Action<AsyncOperationHandle>>(this, h => a(h.Convert<T>())));
                return;
            }
            m_Typed.Add(a);
            m_TypedInvokers.Add(op => a(new AsyncOperationHandle<T>(op, op.m_Version)));
        }

        internal void RemoveTyped<T>(Action<AsyncOperationHandle<T>> a)
        {
            int i = m_Typed.IndexOf(a);
            if (i < 0) return;
            m_Typed.RemoveAt(i);
            m_TypedInvokers.RemoveAt(i);
        }

        internal void StandInProgress(float percent) { m_Percent = percent; }

        internal void StandInComplete(object result)
        {
            Finish(AsyncOperationStatus.Succeeded, result, null);
        }

        internal void StandInFail(Exception error)
        {
            Finish(AsyncOperationStatus.Failed, null, error);
        }

        void Finish(AsyncOperationStatus status, object result, Exception error)
        {
            if (m_IsDone) return;
            m_IsDone = true;
            m_Status = status;
            m_Result = result;
            m_Exception = error;
            m_Percent = 1f;
            running.Remove(this);
            var h = new AsyncOperationHandle(this, m_Version);
            for (int i = 0; i < m_TypedInvokers.Count; i++) m_TypedInvokers[i](this);
            m_Invoking = true;
            try
            {
                for (int i = 0; i < m_Typeless.Count; i++)
                    if (m_Typeless[i] != null) m_Typeless[i](h);
            }
            finally { m_Invoking = false; }
            m_Typed.Clear();
            m_TypedInvokers.Clear();
            m_Typeless.Clear();
        }

        /// <summary>Addressables.Release: the last reference destroys the operation (its handles
        /// turn invalid; a pending one never completes).</summary>
        internal void Release()
        {
            m_Releases++;
            if (--m_RefCount > 0) return;
            m_Version++;
            running.Remove(this);
            m_Typed.Clear();
            m_TypedInvokers.Clear();
            m_Typeless.Clear();
        }

        internal static void Reset()
        {
            running.Clear();
            deferred.Clear();
        }

        /// <summary>ResourceManager.Update (MonoBehaviourCallbackHooks' Update): operations with
        /// frames advance, their progress rising, and complete when they run out.</summary>
        internal static void Update()
        {
            foreach (var op in running.ToArray())
            {
                if (op.m_FramesLeft == 0)
                {
                    op.StandInComplete(op.m_PendingResult);
                    continue;
                }
                op.m_FramesLeft--;
                op.m_Percent = Math.Min(0.9f, op.m_Percent + 0.25f);
            }
        }

        /// <summary>The deferred Completed callbacks (added on a done operation), in LateUpdate.</summary>
        internal static void LateUpdate()
        {
            if (deferred.Count == 0) return;
            var list = deferred.ToArray();
            deferred.Clear();
            foreach (var kv in list)
                if (kv.Key.m_Version >= 0) kv.Value(new AsyncOperationHandle(kv.Key, kv.Key.m_Version));
        }
    }
}
