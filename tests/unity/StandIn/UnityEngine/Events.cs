// Test-only stand-in: UnityEvent (UnityCsReference 2022.3, Runtime/Export/UnityEvent). As in
// Unity, AddListener allocates an invokable call and an Invoke runs the listeners registered
// when it starts (a listener added during an Invoke runs from the next one). Never shipped.
using System;
using System.Collections.Generic;
using System.Reflection;

namespace UnityEngine.Events
{
    public delegate void UnityAction();
    public delegate void UnityAction<T0>(T0 arg0);
    public delegate void UnityAction<T0, T1>(T0 arg0, T1 arg1);
    public delegate void UnityAction<T0, T1, T2>(T0 arg0, T1 arg1, T2 arg2);
    public delegate void UnityAction<T0, T1, T2, T3>(T0 arg0, T1 arg1, T2 arg2, T3 arg3);

    /// <summary>Unity's BaseInvokableCall, reduced to the delegate (one allocated per AddListener).</summary>
    internal sealed class InvokableCall
    {
        internal readonly Delegate Call;
        internal InvokableCall(Delegate call) { Call = call; }
    }

    public abstract class UnityEventBase
    {
        readonly List<InvokableCall> m_Calls = new List<InvokableCall>();
        readonly List<InvokableCall> m_Executing = new List<InvokableCall>();
        bool m_NeedsUpdate = true;

        internal void AddCall(InvokableCall call)
        {
            m_Calls.Add(call);
            m_NeedsUpdate = true;
        }

        internal void RemoveListener(object targetObj, MethodInfo method)
        {
            var toRemove = new List<InvokableCall>();
            foreach (var c in m_Calls)
                if (c.Call.Target == targetObj && c.Call.Method == method) toRemove.Add(c);
            m_Calls.RemoveAll(toRemove.Contains);
            m_NeedsUpdate = true;
        }

        public void RemoveAllListeners()
        {
            m_Calls.Clear();
            m_NeedsUpdate = true;
        }

        internal List<InvokableCall> PrepareInvoke()
        {
            if (m_NeedsUpdate)
            {
                m_Executing.Clear();
                m_Executing.AddRange(m_Calls);
                m_NeedsUpdate = false;
            }
            return m_Executing;
        }

        internal int ListenerCount { get { return m_Calls.Count; } }
    }

    [Serializable]
    public class UnityEvent : UnityEventBase
    {
        public UnityEvent() { }

        public void AddListener(UnityAction call) { AddCall(new InvokableCall(call)); }

        public void RemoveListener(UnityAction call) { RemoveListener(call.Target, call.Method); }

        public void Invoke()
        {
            var calls = PrepareInvoke();
            for (var i = 0; i < calls.Count; i++) ((UnityAction)calls[i].Call)();
        }
    }

    [Serializable]
    public class UnityEvent<T0> : UnityEventBase
    {
        public UnityEvent() { }

        public void AddListener(UnityAction<T0> call) { AddCall(new InvokableCall(call)); }

        public void RemoveListener(UnityAction<T0> call) { RemoveListener(call.Target, call.Method); }

        public void Invoke(T0 arg0)
        {
            var calls = PrepareInvoke();
            for (var i = 0; i < calls.Count; i++) ((UnityAction<T0>)calls[i].Call)(arg0);
        }
    }
    [Serializable]
    public class UnityEvent<T0, T1, T2> : UnityEventBase
    {
        public UnityEvent() { }

        public void AddListener(UnityAction<T0, T1, T2> call) { AddCall(new InvokableCall(call)); }

        public void RemoveListener(UnityAction<T0, T1, T2> call) { RemoveListener(call.Target, call.Method); }

        public void Invoke(T0 arg0, T1 arg1, T2 arg2)
        {
            var calls = PrepareInvoke();
            for (var i = 0; i < calls.Count; i++) ((UnityAction<T0, T1, T2>)calls[i].Call)(arg0, arg1, arg2);
        }
    }
}
