// Unity integration: drives the Onity runtime from Unity's PlayerLoop.
// Compiled by Unity (UNITY_5_3_OR_NEWER is defined for every Unity version) and by the stand-in
// test build (ONITY_UNITY_STANDIN); the engine-agnostic test build of bindings/Runtime skips it.
#if UNITY_5_3_OR_NEWER || ONITY_UNITY_STANDIN
using System;
using System.Collections.Generic;
using UnityEngine;
using UnityEngine.LowLevel;
#if UNITY_EDITOR
using UnityEditor;
#endif

namespace Onity.Unity
{
    /// <summary>Marker types of the systems Onity inserts into the PlayerLoop (Unity identifies a
    /// system by its <c>type</c>; these let Onity find and remove exactly its own systems and let
    /// other libraries and the Profiler tell them apart).</summary>
    public static partial class OnityLoopRunners // the timing markers: OnityLoopTimings.g.cs
    {
        /// <summary>Begins the Onity frame (<see cref="OnityRuntime.BeginFrame"/>): first system of
        /// the Initialization phase, inserted whatever timings are selected.</summary>
        public struct OnityFrameBegin { }

        /// <summary>The marker type of the system that runs <paramref name="timing"/>.</summary>
        public static Type ForTiming(OnityTiming timing) { return Types[(int)timing]; }

        /// <summary>True for every type Onity inserts (the timing markers and the frame begin).</summary>
        public static bool IsOnitySystem(Type type)
        {
            if (type == null) return false;
            if (type == typeof(OnityFrameBegin)) return true;
            for (int i = 0; i < Types.Length; i++) if (Types[i] == type) return true;
            return false;
        }
    }

    /// <summary>
    /// Owns the Onity runtime for Play Mode and drives it from Unity's PlayerLoop.
    ///
    /// <para>At <c>RuntimeInitializeOnLoadMethod(AfterAssembliesLoaded)</c> (main thread) it creates
    /// the <see cref="OnityRuntime"/> and inserts, into the current PlayerLoop, one system per
    /// selected timing (<see cref="DefaultTimings"/>, <see cref="OnityLoopTimings.Standard"/>
    /// unless changed): timing <c>X</c> goes first in phase <c>X</c>, <c>LastX</c> last, plus an
    /// <see cref="OnityLoopRunners.OnityFrameBegin"/> system at the very start of Initialization
    /// that calls <see cref="OnityRuntime.BeginFrame"/> with <c>Time</c>'s values. Systems of other
    /// libraries are kept; Onity's own (found by their marker types) are removed before inserting,
    /// so re-initialising never duplicates them.</para>
    ///
    /// <para>Leaving Play Mode (<c>EditorApplication.playModeStateChanged</c> →
    /// <c>ExitingPlayMode</c>), <c>Application.quitting</c> or a script reload calls
    /// <see cref="Shutdown"/>: the systems are removed, the runtime is destroyed (pending waits
    /// complete canceled) and the event handlers are unhooked. With domain reload disabled the
    /// next Play Mode entry runs the same initialisation again on the surviving static state and
    /// ends up with exactly one runtime and one set of systems.</para>
    /// </summary>
    public static partial class OnityPlayerLoop
    {
        static OnityRuntime runtime;
        static OnityLoopTimings injected;
        static ulong lastFrame;
        static bool lazyBegin;      // no Initialization phase: begin at the first Onity system of a frame
        static int lastUnityFrame = -1;
        // The last timing ticked by the player loop, and the runtime's frame then (NextPollTiming).
        static OnityTiming tickedTiming;
        static ulong tickedFrame;
        static int initializeCount;
        static PlayerLoopSystem.UpdateFunction[] runners;
        static PlayerLoopSystem.UpdateFunction frameBeginRunner;
        static bool loadErrorLogged;    // once per Play Mode entry
#if ENABLE_IL2CPP
        static bool flowWarningLogged;  // once per domain
#endif

        /// <summary>The timings <see cref="Initialize()"/> injects. Set it before Play Mode starts
        /// (e.g. from an <c>[InitializeOnLoad]</c> editor script or a
        /// <c>RuntimeInitializeLoadType.SubsystemRegistration</c> method), or call
        /// <see cref="Initialize(OnityLoopTimings)"/> later to re-inject.</summary>
        public static OnityLoopTimings DefaultTimings = OnityLoopTimings.Standard;

        /// <summary>Records the batch's submit buffer holds (see <see cref="OnityRuntime(int)"/>).</summary>
        public static int SubmitCapacity = 65536;

        /// <summary>When true (default), exceptions of forgotten tasks and of continuations
        /// (<see cref="OnityTask.UnobservedTaskException"/>) go to <c>Debug.LogException</c>.</summary>
        public static bool LogUnobservedExceptions = true;

        /// <summary>When true (default), an unobserved exception reported on another thread is
        /// logged on the main thread (posted to <see cref="UnitySynchronizationContext"/>), as
        /// UniTask's UniTaskScheduler.DispatchUnityMainThread; false logs it where it was reported.</summary>
        public static bool DispatchUnityMainThread = true;

        /// <summary>Raised after the runtime is created (main thread).</summary>
        public static event Action<OnityRuntime> RuntimeCreated;
        /// <summary>Raised just before the runtime is destroyed (main thread).</summary>
        public static event Action<OnityRuntime> RuntimeDestroying;

        static System.Threading.SynchronizationContext unitySynchronizationContext;
        static int mainThreadId;

        /// <summary>Unity's main-thread SynchronizationContext, captured when the runtime was
        /// created (UniTask's PlayerLoopHelper.UnitySynchronizationContext); null before.</summary>
        public static System.Threading.SynchronizationContext UnitySynchronizationContext { get { return unitySynchronizationContext; } }

        /// <summary>The managed id of the thread that created the runtime (Unity's main thread);
        /// 0 before.</summary>
        public static int MainThreadId { get { return mainThreadId; } }

        /// <summary>True on Unity's main thread (<see cref="MainThreadId"/>).</summary>
        public static bool IsMainThread { get { return mainThreadId != 0 && System.Threading.Thread.CurrentThread.ManagedThreadId == mainThreadId; } }

        /// <summary>Logs (<c>Debug.Log</c>) the current PlayerLoop, one line per phase and system
        /// type (UniTask's PlayerLoopHelper.DumpCurrentPlayerLoop), and returns the text.</summary>
        public static string DumpCurrentPlayerLoop()
        {
            var loop = PlayerLoop.GetCurrentPlayerLoop();
            var sb = new System.Text.StringBuilder();
            sb.AppendLine("------Player Loop------");
            if (loop.subSystemList != null)
            {
                foreach (var phase in loop.subSystemList)
                {
                    sb.AppendFormat("------{0}------", phase.type == null ? "(no type)" : phase.type.Name).AppendLine();
                    if (phase.subSystemList == null) continue;
                    foreach (var sys in phase.subSystemList)
                    {
                        sb.Append(sys.type == null ? "(no type)" : sys.type.Name);
                        if (OnityLoopRunners.IsOnitySystem(sys.type)) sb.Append(" (Onity)");
                        sb.AppendLine();
                    }
                }
            }
            var text = sb.ToString();
            Debug.Log(text);
            return text;
        }

        /// <summary>The runtime driven by the PlayerLoop; null outside Play Mode.</summary>
        public static OnityRuntime Runtime { get { return runtime; } }

        public static bool IsInitialized { get { return runtime != null && !runtime.IsDisposed; } }

        /// <summary>The timings currently injected (None when not initialised).</summary>
        public static OnityLoopTimings InjectedTimings { get { return injected; } }

        /// <summary>How many times a runtime was created in this domain (diagnostics: with domain
        /// reload disabled it counts Play Mode entries).</summary>
        public static int InitializeCount { get { return initializeCount; } }

        // ---- Unity entry points ----------------------------------------------------------

        // Domain reload disabled: static state survives the previous Play Mode session. Whatever
        // the exit path missed (a crash in user code, a killed editor callback) is cleaned here.
        [RuntimeInitializeOnLoadMethod(RuntimeInitializeLoadType.SubsystemRegistration)]
        static void OnSubsystemRegistration()
        {
            lastFrame = 0;
            lastUnityFrame = -1;
            tickedTiming = default(OnityTiming);
            tickedFrame = 0;
            // Nothing of this entry exists yet, with domain reload or without: the runtime is
            // created at AfterAssembliesLoaded, after the game's SubsystemRegistration methods
            // (which may set SubmitCapacity or DefaultTimings and hook RuntimeCreated), in the
            // editor as in players (OnEditorDomainLoaded only schedules a start for later).
            loadErrorLogged = false;
            if (runtime != null || injected != OnityLoopTimings.None) Shutdown();
        }

        [RuntimeInitializeOnLoadMethod(RuntimeInitializeLoadType.AfterAssembliesLoaded)]
        static void OnAfterAssembliesLoaded()
        {
            Initialize(DefaultTimings);
        }

        // Another library that sets a loop built from GetDefaultPlayerLoop() (or from a copy taken
        // before AfterAssembliesLoaded) at BeforeSceneLoad drops Onity's systems: put them back.
        [RuntimeInitializeOnLoadMethod(RuntimeInitializeLoadType.AfterSceneLoad)]
        static void OnAfterSceneLoad()
        {
            if (!IsInitialized || injected == OnityLoopTimings.None) return;
            if (ContainsOnitySystem(PlayerLoop.GetCurrentPlayerLoop())) return;
            Debug.LogWarning("Onity: its PlayerLoop systems were removed by another PlayerLoop.SetPlayerLoop; re-inserting " + injected + ".");
            Initialize(injected);
        }

#if UNITY_EDITOR
        // "Recompile And Continue Playing": the domain reloads in Play Mode (Shutdown ran at
        // beforeAssemblyReload) and Unity does not run [RuntimeInitializeOnLoadMethod]s again, so
        // Onity starts at the editor's next tick. Entering Play Mode with domain reload this runs
        // too (with isPlaying already true), before the [RuntimeInitializeOnLoadMethod]s: starting
        // here would create the runtime before the game's SubsystemRegistration methods (and
        // SubsystemRegistration would replace it); deferred, it finds the entry's runtime made at
        // AfterAssembliesLoaded and does nothing. One runtime per entry either way.
        [InitializeOnLoadMethod]
        static void OnEditorDomainLoaded()
        {
            if (!EditorApplication.isPlaying || IsInitialized) return;
            EditorApplication.delayCall -= StartAfterDomainReload;
            EditorApplication.delayCall += StartAfterDomainReload;
        }

        static void StartAfterDomainReload()
        {
            if (EditorApplication.isPlaying && !IsInitialized) Initialize(DefaultTimings);
        }
#endif

        // ---- public API -------------------------------------------------------------------

        /// <summary>Initialises with <see cref="DefaultTimings"/>.</summary>
        public static void Initialize() { Initialize(DefaultTimings); }

        /// <summary>Creates the runtime if needed (on the calling thread, which must be Unity's main
        /// thread) and (re)injects one system per timing in <paramref name="timings"/> into the
        /// current PlayerLoop. Idempotent: calling it again only changes the injected timings.
        /// When the native library is missing, of another platform or of another ABI major, it
        /// logs one error saying which plugin file is needed and how to get it (see
        /// <see cref="OnityNativeCheck"/>), injects nothing and leaves <see cref="IsInitialized"/>
        /// false; Onity awaits then fail, and their failures reach the console.</summary>
        public static void Initialize(OnityLoopTimings timings)
        {
            var loop = PlayerLoop.GetCurrentPlayerLoop();
            Initialize(ref loop, timings);
            PlayerLoop.SetPlayerLoop(loop);
        }

        /// <summary>For projects that build their own PlayerLoop: creates the runtime if needed and
        /// injects Onity's systems into <paramref name="loop"/> (removing any Onity systems already
        /// there) without calling <c>PlayerLoop.SetPlayerLoop</c>.</summary>
        public static void Initialize(ref PlayerLoopSystem loop, OnityLoopTimings timings)
        {
            if (!EnsureRuntime()) return;
            loop = InsertSystems(RemoveSystems(loop), timings);
            injected = timings;
        }

        /// <summary>Removes Onity's systems from the PlayerLoop, destroys the runtime (every pending
        /// wait completes canceled, its continuation runs) and unhooks Onity's Play Mode and quit
        /// handlers. Safe to call more than once; main thread.</summary>
        public static void Shutdown()
        {
            if (injected != OnityLoopTimings.None || ContainsOnitySystem(PlayerLoop.GetCurrentPlayerLoop()))
                PlayerLoop.SetPlayerLoop(RemoveSystems(PlayerLoop.GetCurrentPlayerLoop()));
            injected = OnityLoopTimings.None;

            var rt = runtime;
            runtime = null;
            lastFrame = 0;
            lastUnityFrame = -1;
            tickedTiming = default(OnityTiming);
            tickedFrame = 0;
            if (rt != null && !rt.IsDisposed)
            {
                try
                {
                    var h = RuntimeDestroying;
                    if (h != null) h(rt);
                }
                catch (Exception e) { Debug.LogException(e); }
                try { rt.Dispose(); }
                catch (Exception e) { Debug.LogException(e); }
            }
            UnhookLifetime();
        }

        /// <summary>A copy of <paramref name="loop"/> without any system Onity inserted (at any depth).</summary>
        public static PlayerLoopSystem RemoveSystems(PlayerLoopSystem loop)
        {
            if (loop.subSystemList == null) return loop;
            var kept = new List<PlayerLoopSystem>(loop.subSystemList.Length);
            for (int i = 0; i < loop.subSystemList.Length; i++)
            {
                var s = loop.subSystemList[i];
                if (OnityLoopRunners.IsOnitySystem(s.type)) continue;
                kept.Add(RemoveSystems(s));
            }
            loop.subSystemList = kept.ToArray();
            return loop;
        }

        /// <summary>True when <paramref name="loop"/> contains a system Onity inserted.</summary>
        public static bool ContainsOnitySystem(PlayerLoopSystem loop)
        {
            if (OnityLoopRunners.IsOnitySystem(loop.type)) return true;
            if (loop.subSystemList == null) return false;
            for (int i = 0; i < loop.subSystemList.Length; i++)
                if (ContainsOnitySystem(loop.subSystemList[i])) return true;
            return false;
        }

        // ---- injection --------------------------------------------------------------------

        static Type PhaseFor(OnityTiming timing) { return OnityLoopRunners.Phases[(int)timing]; }

        static PlayerLoopSystem InsertSystems(PlayerLoopSystem root, OnityLoopTimings timings)
        {
            EnsureRunners();
            if (root.subSystemList == null)
            {
                Debug.LogError("Onity: the PlayerLoop has no phases; nothing injected.");
                return root;
            }
            var phases = (PlayerLoopSystem[])root.subSystemList.Clone();
            bool begun = false;
            for (int t = 0; t < OnityLoopRunners.Types.Length; t += 2)
            {
                var first = (OnityTiming)t;
                var last = (OnityTiming)(t + 1);
                bool wantFirst = (timings & (OnityLoopTimings)(1 << t)) != 0;
                bool wantLast = (timings & (OnityLoopTimings)(1 << (t + 1))) != 0;
                bool isInit = first == OnityTiming.Initialization;
                if (!wantFirst && !wantLast && !isInit) continue;
                Type phaseType = PhaseFor(first);
                int idx = Array.FindIndex(phases, p => p.type == phaseType);
                if (idx < 0)
                {
                    if (wantFirst || wantLast)
                        Debug.LogWarning("Onity: PlayerLoop phase " + phaseType.Name + " not found; timings " + first + "/" + last + " will never run.");
                    continue;
                }
                var list = new List<PlayerLoopSystem>(phases[idx].subSystemList ?? new PlayerLoopSystem[0]);
                if (wantFirst) list.Insert(0, Make(OnityLoopRunners.ForTiming(first), runners[t]));
                if (isInit)
                {
                    list.Insert(0, Make(typeof(OnityLoopRunners.OnityFrameBegin), frameBeginRunner));
                    begun = true;
                }
                if (wantLast) list.Add(Make(OnityLoopRunners.ForTiming(last), runners[t + 1]));
                phases[idx].subSystemList = list.ToArray();
            }
            lazyBegin = !begun;
            if (!begun)
                Debug.LogWarning("Onity: PlayerLoop phase Initialization not found; frames begin lazily at the first Onity system of each frame.");
            root.subSystemList = phases;
            return root;
        }

        static PlayerLoopSystem Make(Type type, PlayerLoopSystem.UpdateFunction fn)
        {
            return new PlayerLoopSystem { type = type, updateDelegate = fn };
        }

        static void EnsureRunners()
        {
            if (runners != null) return;
            var r = new PlayerLoopSystem.UpdateFunction[OnityLoopRunners.Types.Length];
            for (int t = 0; t < r.Length; t++) r[t] = new TimingRunner((OnityTiming)t).Run;
            frameBeginRunner = RunFrameBegin;
            runners = r;
        }

        sealed class TimingRunner
        {
            readonly OnityTiming timing;

            public TimingRunner(OnityTiming timing) { this.timing = timing; }

            public void Run()
            {
                var rt = runtime;
                if (rt == null || rt.IsDisposed) return;
                bool marked = OnityProfiler.BeginTick(timing);
                try
                {
                    if (lazyBegin && Time.frameCount != lastUnityFrame) BeginFrame(rt);
                    tickedTiming = timing;
                    tickedFrame = rt.Frame;
                    rt.Tick(timing);
                }
                catch (Exception e) { Debug.LogException(e); }
                OnityProfiler.EndTick(timing, marked);
            }
        }

        /// <summary>The first of <paramref name="points"/> (in player-loop order) still to run in
        /// this frame after the timing the player loop last ticked (code running in a
        /// MonoBehaviour's Update comes after the Update tick), else the first of the next frame:
        /// where a wait polled at several points (UniTask registers one runner at each) is first
        /// seen. Outside a player-loop frame of <paramref name="rt"/>: the first point.</summary>
        internal static OnityTiming NextPollTiming(OnityRuntime rt, OnityTiming[] points)
        {
            if (rt == null || !ReferenceEquals(rt, runtime) || rt.Frame != tickedFrame) return points[0];
            // TimeUpdate runs first in Unity's loop (before Initialization) though numbered last.
            int now = tickedTiming >= OnityTiming.TimeUpdate ? -1 : (int)tickedTiming;
            for (int i = 0; i < points.Length; i++)
                if ((int)points[i] > now) return points[i];
            return points[0];
        }

        // ---- frames -----------------------------------------------------------------------

        static void RunFrameBegin()
        {
            var rt = runtime;
            if (rt == null || rt.IsDisposed) return;
            try { BeginFrame(rt); }
            catch (Exception e) { Debug.LogException(e); }
        }

        static void BeginFrame(OnityRuntime rt)
        {
            // Strictly increasing whatever Time.frameCount does (it can stand still while the
            // editor is paused and restart from 0 across Play Mode sessions).
            ulong f = (ulong)Math.Max(0, Time.frameCount);
            if (f <= lastFrame) f = lastFrame + 1;
            lastFrame = f;
            // The frame-begin system runs at the start of Initialization, where Time holds the new
            // frame's values (never inside a fixed step).
            lastUnityFrame = Time.frameCount;
            bool marked = OnityProfiler.BeginFrame();
            try { rt.BeginFrame(f, Time.deltaTime, Time.unscaledDeltaTime, Time.realtimeSinceStartupAsDouble); }
            finally { OnityProfiler.EndFrame(marked); }
            OnityProfiler.PublishCounters(rt);
        }

        // ---- lifetime ---------------------------------------------------------------------

        static bool EnsureRuntime()
        {
            if (runtime != null && !runtime.IsDisposed) return true;
            // Before the native library is touched: if it cannot be used, the failures of the
            // awaits that follow still reach the console (-= first: once per domain).
            OnityTask.UnobservedTaskException -= OnUnobserved;
            OnityTask.UnobservedTaskException += OnUnobserved;
            var problem = OnityNativeCheck.Problem();
            if (problem != null)
            {
                if (!loadErrorLogged) Debug.LogError(problem);
                loadErrorLogged = true;
                return false;
            }
#if ENABLE_IL2CPP
            if (OnityContextFlow.Enabled && !OnityContextFlow.UsesFastCapture && !flowWarningLogged)
            {
                flowWarningLogged = true;
                Debug.LogWarning("Onity: ExecutionContext's internal FastCapture/Run were stripped from this player: context flow "
                    + "falls back to the public ExecutionContext.Capture, which allocates at every suspension. "
                    + "Keep the package's linker settings (Onity.Editor's OnityLinkerProcessor) or set OnityContextFlow.Enabled = false.");
            }
#endif
            OnityRuntime created;
            try { created = CreateRuntime(); }
            catch (Exception e)
            {
                // Not thrown out of the [RuntimeInitializeOnLoadMethod]: one error per entry, and
                // every await started without the runtime fails with the same message.
                var message = "Onity: could not create the runtime (" + e.GetType().Name + ": " + e.Message
                    + "). Onity is not running: every Onity await fails until a later Play Mode entry (or OnityPlayerLoop.Initialize) creates it.";
                OnityRuntime.UnavailableReason = message;
                if (!loadErrorLogged) Debug.LogError(message);
                loadErrorLogged = true;
                return false;
            }
            OnityRuntime.UnavailableReason = null;
            runtime = created;
            OnityProfiler.Attach(runtime);
            // Unity's main-thread context: completions made on worker threads after the runtime is
            // gone (Play Mode ended) still resume on the main thread, not on the worker.
            var sc = System.Threading.SynchronizationContext.Current;
            if (sc != null) OnityRuntime.NoRuntimeContext = sc;
            unitySynchronizationContext = sc;
            mainThreadId = System.Threading.Thread.CurrentThread.ManagedThreadId;
            initializeCount++;
            lastFrame = 0;
            lastUnityFrame = -1;
            tickedTiming = default(OnityTiming);
            tickedFrame = 0;
            HookLifetime();
            try
            {
                var h = RuntimeCreated;
                if (h != null) h(runtime);
            }
            catch (Exception e) { Debug.LogException(e); }
            return true;
        }

        /// <summary>Makes the Play Mode runtime (tests replace it to force a failed creation).</summary>
        internal static Func<OnityRuntime> CreateRuntime = CreateDefaultRuntime;

        static OnityRuntime CreateDefaultRuntime() { return new OnityRuntime(SubmitCapacity); }

        static void HookLifetime()
        {
            // -= first: static events survive a Play Mode session when domain reload is disabled.
            Application.quitting -= OnQuitting;
            Application.quitting += OnQuitting;
#if UNITY_EDITOR
            EditorApplication.playModeStateChanged -= OnPlayModeStateChanged;
            EditorApplication.playModeStateChanged += OnPlayModeStateChanged;
            AssemblyReloadEvents.beforeAssemblyReload -= OnBeforeAssemblyReload;
            AssemblyReloadEvents.beforeAssemblyReload += OnBeforeAssemblyReload;
#endif
        }

        static void UnhookLifetime()
        {
            Application.quitting -= OnQuitting;
            // OnityTask.UnobservedTaskException stays hooked (once per domain): failures of tasks
            // torn down with the runtime still reach the console.
#if UNITY_EDITOR
            EditorApplication.playModeStateChanged -= OnPlayModeStateChanged;
            AssemblyReloadEvents.beforeAssemblyReload -= OnBeforeAssemblyReload;
#endif
        }

        static void OnQuitting() { Shutdown(); }

        static readonly System.Threading.SendOrPostCallback logOnMain = o => Debug.LogException((Exception)o);

        static void OnUnobserved(Exception e)
        {
            if (!LogUnobservedExceptions) return;
            var sc = unitySynchronizationContext;
            if (DispatchUnityMainThread && sc != null && mainThreadId != 0 && !IsMainThread) sc.Post(logOnMain, e);
            else Debug.LogException(e);
        }

#if UNITY_EDITOR
        static void OnPlayModeStateChanged(PlayModeStateChange state)
        {
            if (state == PlayModeStateChange.ExitingPlayMode) Shutdown();
        }

        static void OnBeforeAssemblyReload() { Shutdown(); }
#endif
    }
}
#endif
