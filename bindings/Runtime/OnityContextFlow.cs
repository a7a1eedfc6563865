using System;
using System.Reflection;
using System.Threading;

namespace Onity
{
    /// <summary>Ambient context (<see cref="ExecutionContext"/>: AsyncLocal values, logical call
    /// context) flow across awaits of <c>async OnityTask</c> methods. On by default; set
    /// <see cref="Enabled"/> to false to turn it off globally (then a continuation runs in whatever
    /// context the thread calling <see cref="OnityRuntime.Tick"/> has, as with UniTask).
    ///
    /// With flow on, each suspension captures the context through the allocation-free
    /// <c>ExecutionContext.FastCapture</c> the BCL's own builders use (bound once by reflection;
    /// falls back to the public, allocating <c>Capture</c> when unavailable). When the captured
    /// context is the default one nothing is kept and the continuation is called directly;
    /// otherwise it runs inside <c>ExecutionContext.Run</c>.
    ///
    /// Under IL2CPP (<c>ENABLE_IL2CPP</c>) flow stays on, with the same semantics: the
    /// <c>FastCapture</c>/<c>Run</c> binding (plain reflection and <c>Delegate.CreateDelegate</c>,
    /// which AOT supports; the package's linker processor keeps those members from stripping) is
    /// used for every suspension. The quick "nothing to flow" check, which reads the thread's
    /// context through a <c>DynamicMethod</c>, is not compiled there (Reflection.Emit throws
    /// under AOT), so each suspension pays for <c>FastCapture</c> (allocation-free on a thread
    /// with nothing to flow). If the members were stripped anyway, flow falls back to the public
    /// <c>ExecutionContext.Capture</c>/<c>Run</c>: same semantics, but every suspension allocates a
    /// context (72 bytes on Mono's class library), whatever the thread holds (OnityPlayerLoop warns
    /// at startup).</summary>
    internal static class FlowSwitch
    {
        internal static bool enabled = true;
    }

    public static class OnityContextFlow
    {
        /// <summary>The global switch (default true).</summary>
        public static bool Enabled
        {
            get { return FlowSwitch.enabled; }
            set { FlowSwitch.enabled = value; }
        }

        static readonly Func<ExecutionContext> fastCapture;
        // True when the thread has nothing to flow: no ExecutionContext of its own, or one holding
        // only a SynchronizationContext (Unity's main thread has one; on Mono it lives in the
        // thread's ExecutionContext) and no AsyncLocal or logical call context values. What
        // FastCapture checks before it returns its "default" marker, without its cost (about
        // 80 ns per suspension measured on such a thread). Null when unavailable.
        static readonly Func<Thread, bool> nothingToFlow;
        static readonly bool nothingToFlowLooksInside; // false: the fallback that only sees "no context"
        [ThreadStatic] static Thread currentThread;
        static readonly Action<ExecutionContext, ContextCallback, object, bool> internalRun;
        static readonly ExecutionContext defaultContext;

        /// <summary>True when the allocation-free internal capture was bound.</summary>
        public static bool UsesFastCapture { get { return fastCapture != null && internalRun != null; } }

        /// <summary>True when a thread without context of its own is recognised without a capture.</summary>
        public static bool UsesEmptyContextCheck { get { return nothingToFlow != null; } }

        /// <summary>True when a thread whose context holds nothing that flows (only a
        /// SynchronizationContext, as Unity's main thread) is recognised without a capture.</summary>
        public static bool UsesNothingToFlowCheck { get { return nothingToFlowLooksInside; } }

#if !ENABLE_IL2CPP
        // Reflection.Emit: JIT only (Mono in the editor and in Mono players). Under IL2CPP this
        // whole section is left out and the checks stay null.
        /// <summary>A method of Thread taking the thread (owned by Thread, not by this class: calling
        /// it must not wait for this type initializer).</summary>
        static System.Reflection.Emit.DynamicMethod ThreadMethod(string name, Type result)
        {
            return new System.Reflection.Emit.DynamicMethod(name, result, new[] { typeof(Thread) }, typeof(Thread), true);
        }

        /// <summary>The delegate of <paramref name="dm"/>, called once on this thread (it must not throw).</summary>
        static Func<Thread, TResult> Bind<TResult>(System.Reflection.Emit.DynamicMethod dm)
        {
            var d = (Func<Thread, TResult>)dm.CreateDelegate(typeof(Func<Thread, TResult>));
            d(Thread.CurrentThread);
            return d;
        }

        /// <summary>Emits: to <paramref name="target"/> when field <paramref name="f"/> of local
        /// <paramref name="obj"/> is not null (nor 0).</summary>
        static void BranchIfSet(System.Reflection.Emit.ILGenerator il, System.Reflection.Emit.LocalBuilder obj, FieldInfo f, System.Reflection.Emit.Label target)
        {
            il.Emit(System.Reflection.Emit.OpCodes.Ldloc, obj);
            il.Emit(System.Reflection.Emit.OpCodes.Ldfld, f);
            il.Emit(System.Reflection.Emit.OpCodes.Brtrue_S, target);
        }

        static Func<Thread, ExecutionContext> BindThreadContext()
        {
            try
            {
                var f = typeof(Thread).GetField("m_ExecutionContext", BindingFlags.NonPublic | BindingFlags.Instance);
                if (f == null || f.FieldType != typeof(ExecutionContext)) return null;
                var dm = ThreadMethod("OnityThreadContext", typeof(ExecutionContext));
                var il = dm.GetILGenerator();
                il.Emit(System.Reflection.Emit.OpCodes.Ldarg_0);
                il.Emit(System.Reflection.Emit.OpCodes.Ldfld, f);
                il.Emit(System.Reflection.Emit.OpCodes.Ret);
                return Bind<ExecutionContext>(dm);
            }
            catch (Exception)
            {
                return null;
            }
        }

        static Func<Thread, bool> BindNothingToFlow()
        {
            try
            {
                const BindingFlags inst = BindingFlags.NonPublic | BindingFlags.Instance;
                var ecField = typeof(Thread).GetField("m_ExecutionContext", inst);
                var t = typeof(ExecutionContext);
                var values = t.GetField("_localValues", inst);
                var notifications = t.GetField("_localChangeNotifications", inst);
                var logical = t.GetField("_logicalCallContext", inst);
                var illogical = t.GetField("_illogicalCallContext", inst);
                var isDefault = t.GetMethod("IsDefaultFTContext", inst, null, new[] { typeof(bool) }, null);
                // What LogicalCallContext.HasInfo looks at (Mono 6.8): all null means no info.
                FieldInfo[] lccFields = null;
                if (logical != null)
                {
                    var lt = logical.FieldType;
                    lccFields = new[] { lt.GetField("m_Datastore", inst), lt.GetField("m_RemotingData", inst), lt.GetField("m_SecurityData", inst), lt.GetField("m_HostContext", inst) };
                    if (Array.IndexOf(lccFields, null) >= 0 || lt.GetFields(inst).Length != 7) lccFields = null; // another layout: ask IsDefaultFTContext
                }
                if (ecField == null || ecField.FieldType != t || values == null || notifications == null || logical == null || illogical == null
                    || isDefault == null || isDefault.ReturnType != typeof(bool))
                    return null;
                var dm = ThreadMethod("OnityNothingToFlow", typeof(bool));
                var il = dm.GetILGenerator();
                var ec = il.DeclareLocal(t);
                var notNull = il.DefineLabel();
                var no = il.DefineLabel();
                il.Emit(System.Reflection.Emit.OpCodes.Ldarg_0);
                il.Emit(System.Reflection.Emit.OpCodes.Ldfld, ecField);
                il.Emit(System.Reflection.Emit.OpCodes.Stloc, ec);
                il.Emit(System.Reflection.Emit.OpCodes.Ldloc, ec);
                il.Emit(System.Reflection.Emit.OpCodes.Brtrue_S, notNull);
                il.Emit(System.Reflection.Emit.OpCodes.Ldc_I4_1);
                il.Emit(System.Reflection.Emit.OpCodes.Ret);
                il.MarkLabel(notNull);
                BranchIfSet(il, ec, values, no);
                BranchIfSet(il, ec, notifications, no);
                // No call context with anything in it (Unity's main thread: the
                // SynchronizationContext, perhaps an empty logical call context left by a Task's
                // continuation): nothing to flow, without the call below. Anything else takes it.
                var check = il.DefineLabel();
                var noLogical = il.DefineLabel();
                var lcc = il.DeclareLocal(logical.FieldType);
                il.Emit(System.Reflection.Emit.OpCodes.Ldloc, ec);
                il.Emit(System.Reflection.Emit.OpCodes.Ldfld, logical);
                il.Emit(System.Reflection.Emit.OpCodes.Stloc, lcc);
                il.Emit(System.Reflection.Emit.OpCodes.Ldloc, lcc);
                il.Emit(System.Reflection.Emit.OpCodes.Brfalse_S, noLogical);
                if (lccFields == null)
                {
                    il.Emit(System.Reflection.Emit.OpCodes.Br_S, check);
                }
                else
                {
                    foreach (var f in lccFields)
                    {
                        BranchIfSet(il, lcc, f, check);
                    }
                }
                il.MarkLabel(noLogical);
                BranchIfSet(il, ec, illogical, check);
                il.Emit(System.Reflection.Emit.OpCodes.Ldc_I4_1);
                il.Emit(System.Reflection.Emit.OpCodes.Ret);
                il.MarkLabel(check);
                il.Emit(System.Reflection.Emit.OpCodes.Ldloc, ec);
                il.Emit(System.Reflection.Emit.OpCodes.Ldc_I4_1); // ignoreSyncCtx: it does not flow
                il.Emit(System.Reflection.Emit.OpCodes.Call, isDefault);
                il.Emit(System.Reflection.Emit.OpCodes.Ret);
                il.MarkLabel(no);
                il.Emit(System.Reflection.Emit.OpCodes.Ldc_I4_0);
                il.Emit(System.Reflection.Emit.OpCodes.Ret);
                return Bind<bool>(dm);
            }
            catch (Exception)
            {
                return null;
            }
        }
#endif

        static OnityContextFlow()
        {
#if ONITY_TEST_HOOKS
            // Tests only: behave as in a player whose managed code stripping removed the
            // ExecutionContext/Thread internals bound below (the public fallback path).
            if (Environment.GetEnvironmentVariable("ONITY_TEST_STRIPPED_EXECUTION_CONTEXT") == "1") return;
#endif
#if !ENABLE_IL2CPP
            nothingToFlow = BindNothingToFlow();
            nothingToFlowLooksInside = nothingToFlow != null;
            if (nothingToFlow == null)
            {
                // Fallback where ExecutionContext's fields differ: only "no context at all" is
                // recognised (Thread.m_ExecutionContext is null).
                var tc = BindThreadContext();
                if (tc != null) nothingToFlow = th => tc(th) == null;
            }
#endif
            try
            {
                var t = typeof(ExecutionContext);
                var fc = t.GetMethod("FastCapture", BindingFlags.NonPublic | BindingFlags.Static, null, Type.EmptyTypes, null);
                var run = t.GetMethod("Run", BindingFlags.NonPublic | BindingFlags.Static, null,
                    new[] { typeof(ExecutionContext), typeof(ContextCallback), typeof(object), typeof(bool) }, null);
                if (fc != null && run != null)
                {
                    fastCapture = (Func<ExecutionContext>)Delegate.CreateDelegate(typeof(Func<ExecutionContext>), fc);
                    internalRun = (Action<ExecutionContext, ContextCallback, object, bool>)Delegate.CreateDelegate(
                        typeof(Action<ExecutionContext, ContextCallback, object, bool>), run);
                    // The object FastCapture hands out for "nothing to flow".
                    var f = t.GetField("s_dummyDefaultEC", BindingFlags.NonPublic | BindingFlags.Static);
                    defaultContext = f != null ? f.GetValue(null) as ExecutionContext : null;
                    if (defaultContext == null)
                    {
                        ExecutionContext probe = null;
                        var th = new Thread(() => { probe = fastCapture(); });
                        th.Start();
                        th.Join();
                        defaultContext = probe;
                    }
                }
            }
            catch (Exception)
            {
                fastCapture = null;
                internalRun = null;
            }
        }

        /// <summary>The context to flow, or null when there is nothing to flow (flow off, flow
        /// suppressed, or the default context).</summary>
        [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveInlining)]
        internal static ExecutionContext Capture()
        {
            var nf = nothingToFlow;
            if (nf != null)
            {
                var th = currentThread;
                if (th != null && nf(th)) return null;
            }
            return CaptureSlow();
        }

        static ExecutionContext CaptureSlow()
        {
#if ONITY_TEST_HOOKS
            Interlocked.Increment(ref OnityTestHooks.SlowCaptures);
#endif
            var nf = nothingToFlow;
            if (nf != null)
            {
                var th = currentThread;
                if (th == null) currentThread = th = Thread.CurrentThread;
                if (nf(th)) return null;
            }
            if (fastCapture != null)
            {
                var ec = fastCapture();
                return ReferenceEquals(ec, defaultContext) ? null : ec;
            }
            if (ExecutionContext.IsFlowSuppressed()) return null;
            return ExecutionContext.Capture();
        }

        internal static void Run(ExecutionContext ec, ContextCallback callback, object state)
        {
            if (internalRun != null) internalRun(ec, callback, state, true);
            else ExecutionContext.Run(ec, callback, state);
        }
    }
}
