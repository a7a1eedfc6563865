using System;
using System.Collections.Generic;
using System.Linq;
using System.Reflection;
using UnityEditor;
using UnityEngine;
using UnityEngine.LowLevel;
using PL = UnityEngine.PlayerLoop;

namespace Onity.UnityTests
{
    /// <summary>Stands in for Unity 2022.3's UnitySynchronizationContext on the main thread, as
    /// strict as Unity's (UnityCsReference Runtime/Export/Scripting/UnitySynchronizationContext.cs):
    /// <see cref="Exec"/> runs a snapshot of the posts (work posted while it runs waits for the next
    /// Exec); an item that throws ends the Exec (the exception goes to the caller, the engine, which
    /// logs it) and the items after it run at the next Exec, before newer posts; <see cref="Send"/>
    /// runs inline on the main thread only, and from any other thread queues the work and blocks
    /// until the main thread's next Exec has run it.</summary>
    public sealed class StandInMainContext : System.Threading.SynchronizationContext
    {
        struct Work
        {
            public System.Threading.SendOrPostCallback Callback;
            public object State;
            public System.Threading.ManualResetEvent Done; // Send from another thread

            public void Invoke()
            {
                try { Callback(State); }
                finally { if (Done != null) Done.Set(); }
            }
        }

        readonly List<Work> queue = new List<Work>();
        readonly List<Work> currentFrame = new List<Work>();
        /// <summary>The main thread's managed id (Unity's m_MainThreadID).</summary>
        public int MainThreadId;

        public override void Post(System.Threading.SendOrPostCallback d, object state)
        {
            lock (queue) queue.Add(new Work { Callback = d, State = state });
        }

        public override void Send(System.Threading.SendOrPostCallback d, object state)
        {
            if (System.Threading.Thread.CurrentThread.ManagedThreadId == MainThreadId)
            {
                d(state);
                return;
            }
            using (var done = new System.Threading.ManualResetEvent(false))
            {
                lock (queue) queue.Add(new Work { Callback = d, State = state, Done = done });
                done.WaitOne();
            }
        }

        public override System.Threading.SynchronizationContext CreateCopy() { return this; }

        /// <summary>Posts not yet run: queued, plus those an exception deferred.</summary>
        public int Pending { get { lock (queue) return queue.Count + currentFrame.Count; } }

        /// <summary>Unity's Exec (main thread, once per frame): may throw the exception of an item.</summary>
        public void Exec()
        {
            lock (queue)
            {
                currentFrame.AddRange(queue);
                queue.Clear();
            }
            while (currentFrame.Count > 0)
            {
                var w = currentFrame[0];
                currentFrame.RemoveAt(0);
                w.Invoke();
            }
        }

        /// <summary>What the engine does each frame: Exec, and an escaping exception logged.</summary>
        public void Pump()
        {
            try { Exec(); }
            catch (Exception e) { Debug.LogException(e); }
        }

        public void Clear()
        {
            lock (queue)
            {
                foreach (var w in queue) if (w.Done != null) w.Done.Set();
                queue.Clear();
            }
            currentFrame.Clear();
        }
    }

    /// <summary>
    /// A simulated Unity editor/player for the stand-in: Play Mode entry and exit (with the
    /// RuntimeInitializeOnLoadMethod sequence and the editor events), and frames that walk the
    /// current PlayerLoop tree in order, invoking each system's updateDelegate as Unity does and
    /// standing in for the engine's native systems that matter here (time update, MonoBehaviour
    /// Start/FixedUpdate/Update/LateUpdate/OnGUI, deferred Destroy, fixed steps).
    /// </summary>
    public static class Sim
    {
        /// <summary>The main thread's SynchronizationContext, as Unity installs one.</summary>
        public static readonly StandInMainContext MainContext = new StandInMainContext();
        /// <summary>The thread that last reset the engine (Unity's main thread).</summary>
        public static System.Threading.Thread MainThread;

        /// <summary>The type of the PlayerLoop system currently running (null between frames).</summary>
        public static Type CurrentSystem;
        /// <summary>Frame time (unscaled) of the next frames.</summary>
        public static float FrameTime = 1f / 60f;
        /// <summary>Extra realtime (seconds) added before the next frame only (a hitch/pause).</summary>
        public static double ExtraRealtimeNextFrame;
        public static int FixedStepsLastFrame;
        public static int MaxFixedSteps = 8;
        /// <summary>Namespaces whose [RuntimeInitializeOnLoadMethod]s run on Play Mode entry.</summary>
        public static readonly List<string> InitNamespaces = new List<string>();
        /// <summary>Called between BeforeSceneLoad and AfterSceneLoad: "loads the scene".</summary>
        public static Action LoadScene;
        public static bool InPlayMode;
        /// <summary>Play Mode entries that reloaded the domain (Enter Play Mode Options off, the
        /// editor's default, or on without DisableDomainReload).</summary>
        public static int DomainReloads;
        /// <summary>[RuntimeInitializeOnLoadMethod]s and [InitializeOnLoadMethod]s run, per load type
        /// ("InitializeOnLoad" for the editor's), since the last ResetEngine.</summary>
        public static readonly Dictionary<string, int> InitCalls = new Dictionary<string, int>();

        static double fixedAccumulator;

        public static void ResetEngine()
        {
            if (InPlayMode) ExitPlayMode();
            MainContext.Clear();
            StandInCoroutines.Clear();
            MainThread = System.Threading.Thread.CurrentThread;
            MainContext.MainThreadId = MainThread.ManagedThreadId;
            StandInThread.MainThreadId = MainThread.ManagedThreadId;
            StandInVersion.Patch = StandInVersion.Latest;
            System.Threading.SynchronizationContext.SetSynchronizationContext(MainContext);
            PlayerLoop.ResetToDefault();
            Time.Reset();
            Time.s_realtime = 0;
            Debug.Clear();
            StandInGui.Drawn.Clear();
            StandInAsync.Reset();
            UnityEngine.ResourceManagement.AsyncOperations.StandInOperation.Reset();
            PendingMessages.Clear();
            global::Unity.Profiling.StandInProfiler.Samples.Clear();
            global::Unity.Profiling.StandInProfiler.Record = false;
            global::Unity.Profiling.StandInProfiler.ResetPairing();
            FrameTime = 1f / 60f;
            ExtraRealtimeNextFrame = 0;
            fixedAccumulator = 0;
            InitNamespaces.Clear();
            InitNamespaces.Add("Onity.Unity");
            LoadScene = null;
            CurrentSystem = null;
            Onity.Unity.OnityPlayerLoop.DefaultTimings = Onity.Unity.OnityLoopTimings.Standard;
            Onity.OnityRuntime.UnavailableReason = null;
            // Unity's defaults: Enter Play Mode Options off, so every entry reloads the domain.
            EditorSettings.enterPlayModeOptionsEnabled = false;
            EditorSettings.enterPlayModeOptions = EnterPlayModeOptions.DisableDomainReload | EnterPlayModeOptions.DisableSceneReload;
            DomainReloads = 0;
            InitCalls.Clear();
            EditorApplication.delayCall = null;
        }

        /// <summary>Enter Play Mode Options as the project sets them: domain reload on (the default)
        /// or off.</summary>
        public static void SetDomainReload(bool reload)
        {
            EditorSettings.enterPlayModeOptionsEnabled = !reload;
            EditorSettings.enterPlayModeOptions = reload ? EnterPlayModeOptions.None : EnterPlayModeOptions.DisableDomainReload;
        }

        static bool ReloadsDomainOnEntry
        {
            get
            {
                return !(EditorSettings.enterPlayModeOptionsEnabled
                    && (EditorSettings.enterPlayModeOptions & EnterPlayModeOptions.DisableDomainReload) != 0);
            }
        }

        // ---- Play Mode ------------------------------------------------------------------

        public static void EnterPlayMode()
        {
            if (InPlayMode) throw new InvalidOperationException("already in Play Mode");
            StandInScene.OnComponentAdded = OnComponentAdded;
            StandInScene.OnEnabledChanged = OnEnabledChanged;
            StandInScene.OnActiveChanged = OnActiveChanged;
            Time.Reset();
            fixedAccumulator = 0;
            EditorApplication.RaisePlayModeStateChanged(PlayModeStateChange.ExitingEditMode);
            Application.s_isPlaying = true;
            EditorApplication.s_isPlaying = true;
            InPlayMode = true;
            if (ReloadsDomainOnEntry)
            {
                // The editor reloads the domain with isPlaying already true: beforeAssemblyReload,
                // then (new domain) every [InitializeOnLoad]/[InitializeOnLoadMethod], then the
                // [RuntimeInitializeOnLoadMethod]s below. The package's statics are reset as a new
                // domain has them, and none may differ from a fresh AppDomain's (DomainReload).
                AssemblyReloadEvents.RaiseBeforeAssemblyReload();
                DomainReload.Reset();
                var survivors = DomainReload.Survivors();
                if (survivors.Count > 0)
                {
                    // A worker thread of an earlier test may still finish its work (a pooled object
                    // returned) after the reset, which a real reload would have aborted: once more.
                    System.Threading.Thread.Sleep(50);
                    DomainReload.Reset();
                    survivors = DomainReload.Survivors();
                }
                if (survivors.Count > 0) throw new InvalidOperationException("statics survived the domain reload:\n" + string.Join("\n", survivors));
                DomainReloads++;
                RunEditorInitializeOnLoad();
            }
            RunInitMethods(RuntimeInitializeLoadType.SubsystemRegistration);
            RunInitMethods(RuntimeInitializeLoadType.AfterAssembliesLoaded);
            RunInitMethods(RuntimeInitializeLoadType.BeforeSplashScreen);
            RunInitMethods(RuntimeInitializeLoadType.BeforeSceneLoad);
            if (LoadScene != null) LoadScene();
            RunInitMethods(RuntimeInitializeLoadType.AfterSceneLoad);
            EditorApplication.RaisePlayModeStateChanged(PlayModeStateChange.EnteredPlayMode);
        }

        /// <summary>Leaves Play Mode as the editor does: ExitingPlayMode, Application.quitting,
        /// scene objects destroyed, EnteredEditMode. With <paramref name="raiseEvents"/> false the
        /// events are skipped (a missed exit hook), to test recovery on the next entry.</summary>
        public static void ExitPlayMode(bool raiseEvents = true)
        {
            if (!InPlayMode) return;
            if (raiseEvents)
            {
                EditorApplication.RaisePlayModeStateChanged(PlayModeStateChange.ExitingPlayMode);
                Application.InvokeQuitting();
            }
            foreach (var go in StandInScene.Objects.ToList()) UnityEngine.Object.Destroy(go);
            ProcessDestroys();
            Application.s_isPlaying = false;
            EditorApplication.s_isPlaying = false;
            InPlayMode = false;
            if (raiseEvents) EditorApplication.RaisePlayModeStateChanged(PlayModeStateChange.EnteredEditMode);
        }

        static void RunInitMethods(RuntimeInitializeLoadType type)
        {
            var methods = typeof(Sim).Assembly.GetTypes()
                .Where(t => t.Namespace != null && InitNamespaces.Any(ns => t.Namespace == ns || t.Namespace.StartsWith(ns + ".")))
                .SelectMany(t => t.GetMethods(BindingFlags.Static | BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.DeclaredOnly))
                .Where(m => m.GetCustomAttributes(typeof(RuntimeInitializeOnLoadMethodAttribute), false)
                    .Cast<RuntimeInitializeOnLoadMethodAttribute>().Any(a => a.loadType == type))
                .OrderBy(m => m.DeclaringType.FullName).ThenBy(m => m.Name);
            foreach (var m in methods)
            {
                Count(type.ToString());
                try { m.Invoke(null, null); }
                catch (TargetInvocationException e) { Debug.LogException(e.InnerException); }
            }
        }

        static void Count(string what)
        {
            int n;
            InitCalls.TryGetValue(what, out n);
            InitCalls[what] = n + 1;
        }

        /// <summary>After a domain reload the editor runs every [InitializeOnLoadMethod] (not the
        /// [RuntimeInitializeOnLoadMethod]s, even in Play Mode).</summary>
        public static void RunEditorInitializeOnLoad()
        {
            var methods = typeof(Sim).Assembly.GetTypes()
                .Where(t => t.Namespace != null && InitNamespaces.Any(ns => t.Namespace == ns || t.Namespace.StartsWith(ns + ".")))
                .SelectMany(t => t.GetMethods(BindingFlags.Static | BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.DeclaredOnly))
                .Where(m => m.GetCustomAttributes(typeof(InitializeOnLoadMethodAttribute), false).Length > 0);
            foreach (var m in methods)
            {
                Count("InitializeOnLoad");
                try { m.Invoke(null, null); }
                catch (TargetInvocationException e) { Debug.LogException(e.InnerException); }
            }
        }

        // ---- frames ------------------------------------------------------------------------

        public static void RunFrames(int n)
        {
            for (int i = 0; i < n; i++) RunFrame();
        }

        /// <summary>The editor's update in Edit Mode: runs what was posted to the main context.</summary>
        public static void RunEditorUpdate()
        {
            EditorApplication.CallDelayFunctions();
            MainContext.Pump();
        }

        public static void RunFrame()
        {
            EditorApplication.CallDelayFunctions(); // the editor's tick (Play Mode too): delayCall
            MainContext.Pump(); // Unity runs the context's posts once per frame
            var loop = PlayerLoop.Peek();
            if (loop.subSystemList == null) return;
            foreach (var s in loop.subSystemList) RunSystem(s);
            CurrentSystem = null;
            StandInCoroutines.Run(true); // WaitForEndOfFrame: after rendering, outside the player loop
            global::Unity.Profiling.StandInProfiler.EndOfFrame();
        }

        static void RunSystem(PlayerLoopSystem s)
        {
            if (s.type == typeof(PL.FixedUpdate))
            {
                // The native loop condition runs the phase once per due fixed step.
                int steps = 0;
                while (fixedAccumulator >= Time.s_fixedDeltaTime && steps < MaxFixedSteps)
                {
                    fixedAccumulator -= Time.s_fixedDeltaTime;
                    Time.s_fixedTime += Time.s_fixedDeltaTime;
                    Time.s_inFixedTimeStep = true;
                    try { RunChildren(s); }
                    finally { Time.s_inFixedTimeStep = false; }
                    steps++;
                }
                FixedStepsLastFrame = steps;
                return;
            }
            var prev = CurrentSystem;
            CurrentSystem = s.type;
            if (s.updateDelegate != null)
            {
                try { s.updateDelegate(); }
                catch (Exception e) { Debug.LogException(e); }
            }
            else Native(s.type);
            RunChildren(s);
            CurrentSystem = prev;
        }

        static void RunChildren(PlayerLoopSystem s)
        {
            if (s.subSystemList == null) return;
            foreach (var c in s.subSystemList) RunSystem(c);
        }

        static void Native(Type t)
        {
            if (t == typeof(PL.TimeUpdate.WaitForLastPresentationAndUpdateTime)) AdvanceTime();
            else if (t == typeof(PL.EarlyUpdate.UnityWebRequestUpdate)) StandInAsync.Run(StandInAsync.Stage.WebRequest);
            else if (t == typeof(PL.EarlyUpdate.UpdateAsyncReadbackManager)) StandInAsync.Run(StandInAsync.Stage.GpuReadback);
            else if (t == typeof(PL.EarlyUpdate.UpdatePreloading)) StandInAsync.Run(StandInAsync.Stage.Preloading);
            else if (t == typeof(PL.FixedUpdate.PhysicsFixedUpdate)) DeliverMessages(MessageTime.Physics);
            else if (t == typeof(PL.PostLateUpdate.UpdateAllRenderers)) DeliverMessages(MessageTime.Rendering);
            else if (t == typeof(PL.EarlyUpdate.ScriptRunDelayedStartupFrame)) StartPending();
            else if (t == typeof(PL.FixedUpdate.ScriptRunBehaviourFixedUpdate)) SendToAll("FixedUpdate");
            else if (t == typeof(PL.Update.ScriptRunBehaviourUpdate))
            {
                SendToAll("Update");
                UnityEngine.ResourceManagement.AsyncOperations.StandInOperation.Update(); // Addressables' MonoBehaviourCallbackHooks
            }
            else if (t == typeof(PL.Update.ScriptRunDelayedDynamicFrameRate)) StandInCoroutines.Run(false); // yield return null
            else if (t == typeof(PL.Update.ScriptRunDelayedTasks)) ProcessDestroys();
            else if (t == typeof(PL.PreLateUpdate.ScriptRunBehaviourLateUpdate))
            {
                SendToAll("LateUpdate");
                UnityEngine.ResourceManagement.AsyncOperations.StandInOperation.LateUpdate(); // deferred Completed callbacks
            }
            else if (t == typeof(PL.PostLateUpdate.PlayerSendFrameStarted)) ProcessDestroys();
            else if (t == typeof(PL.PostLateUpdate.FinishFrameRendering)) SendToAll("OnGUI");
        }

        static void AdvanceTime()
        {
            float udt = FrameTime;
            Time.s_frameCount++;
            Time.s_unscaledDeltaTime = udt;
            Time.s_deltaTime = udt * Time.s_timeScale;
            Time.s_unscaledTime += udt;
            Time.s_unscaledTimeAsDouble += udt;
            Time.s_time += Time.s_deltaTime;
            Time.s_timeAsDouble += Time.s_deltaTime;
            Time.s_realtime += udt + ExtraRealtimeNextFrame;
            ExtraRealtimeNextFrame = 0;
            fixedAccumulator += Time.s_deltaTime;
        }

        // ---- MonoBehaviour messages --------------------------------------------------------

        public enum MessageTime { Physics, Rendering }

        struct PendingMessage
        {
            public MessageTime When;
            public GameObject Target;
            public string Name;
            public Type ArgType;
            public object Arg;
        }

        static readonly List<PendingMessage> PendingMessages = new List<PendingMessage>();

        /// <summary>Queues a message for every MonoBehaviour of <paramref name="target"/>, sent
        /// where the engine sends it: physics messages (OnTriggerEnter, OnCollisionEnter) in the
        /// next fixed step's PhysicsFixedUpdate, rendering ones (OnBecameVisible) in the next
        /// PostLateUpdate.UpdateAllRenderers.</summary>
        public static void QueueMessage(MessageTime when, GameObject target, string name, Type argType = null, object arg = null)
        {
            PendingMessages.Add(new PendingMessage { When = when, Target = target, Name = name, ArgType = argType, Arg = arg });
        }

        static void DeliverMessages(MessageTime when)
        {
            var due = PendingMessages.Where(m => m.When == when).ToList();
            PendingMessages.RemoveAll(m => m.When == when);
            foreach (var m in due)
            {
                if (!m.Target) continue;
                foreach (var c in m.Target.m_Components.ToList())
                {
                    var mb = c as MonoBehaviour;
                    if (mb != null && !mb.m_Destroyed && m.Target.activeSelf) Send(mb, m.Name, m.ArgType, m.Arg);
                }
            }
        }

        static void OnEnabledChanged(Behaviour b)
        {
            var mb = b as MonoBehaviour;
            if (mb == null || !InPlayMode || mb.m_Destroyed || mb.m_AwaitingAwake || !mb.gameObject.activeSelf) return;
            Send(mb, mb.enabled ? "OnEnable" : "OnDisable");
        }

        static void OnComponentAdded(Component c)
        {
            var mb = c as MonoBehaviour;
            if (mb == null || !InPlayMode) return;
            if (!mb.gameObject.activeSelf)
            {
                mb.m_AwaitingAwake = true; // Awake and OnEnable wait for the activation
                return;
            }
            Send(mb, "Awake");
            Send(mb, "OnEnable");
        }

        static void OnActiveChanged(GameObject go)
        {
            if (!InPlayMode) return;
            foreach (var c in go.m_Components.ToList())
            {
                var mb = c as MonoBehaviour;
                if (mb == null || mb.m_Destroyed) continue;
                if (go.activeSelf)
                {
                    if (mb.m_AwaitingAwake)
                    {
                        mb.m_AwaitingAwake = false;
                        Send(mb, "Awake");
                    }
                    if (mb.enabled) Send(mb, "OnEnable");
                }
                else if (!mb.m_AwaitingAwake && mb.enabled) Send(mb, "OnDisable");
            }
        }

        static void StartPending()
        {
            foreach (var mb in StandInScene.Behaviours.ToList())
            {
                if (mb.m_Started || mb.m_Destroyed || mb.m_AwaitingAwake || !mb.gameObject.activeSelf) continue;
                mb.m_Started = true;
                Send(mb, "Start");
            }
        }

        static void SendToAll(string message)
        {
            foreach (var mb in StandInScene.Behaviours.ToList())
                if (mb.m_Started && !mb.m_Destroyed && mb.enabled && mb.gameObject.activeSelf) Send(mb, message);
        }

        static void Send(MonoBehaviour mb, string message, Type argType = null, object arg = null)
        {
            var types = argType == null ? Type.EmptyTypes : new[] { argType };
            var args = argType == null ? null : new[] { arg };
            for (var t = mb.GetType(); t != null && t != typeof(MonoBehaviour); t = t.BaseType)
            {
                var m = t.GetMethod(message, BindingFlags.Instance | BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.DeclaredOnly, null, types, null);
                if (m == null) continue;
                try { m.Invoke(mb, args); }
                catch (TargetInvocationException e) { Debug.LogException(e.InnerException); }
                return;
            }
        }

        public static void ProcessDestroys()
        {
            while (StandInScene.PendingDestroy.Count > 0)
            {
                var list = StandInScene.PendingDestroy.ToList();
                StandInScene.PendingDestroy.Clear();
                foreach (var o in list)
                {
                    if (o.m_Destroyed) continue;
                    var go = o as GameObject;
                    if (go != null)
                    {
                        foreach (var c in go.m_Components.ToList()) DestroyComponent(c);
                        go.m_Destroyed = true;
                        StandInScene.Objects.Remove(go);
                    }
                    else DestroyComponent((Component)o);
                }
            }
        }

        static void DestroyComponent(Component c)
        {
            if (c.m_Destroyed) return;
            var mb = c as MonoBehaviour;
            if (mb != null)
            {
                // A component that never had Awake (its GameObject never active since it was
                // added) gets neither OnDisable nor OnDestroy from Unity.
                bool awoken = !mb.m_AwaitingAwake;
                if (awoken && (mb.gameObject == null || mb.gameObject.activeSelf)) Send(mb, "OnDisable");
                mb.CancelDestroyToken();
                if (awoken) Send(mb, "OnDestroy");
                StandInScene.Behaviours.Remove(mb);
            }
            c.m_Destroyed = true;
            if (c.m_GameObject != null) c.m_GameObject.m_Components.Remove(c);
        }

        // ---- loop inspection ---------------------------------------------------------------

        public static PlayerLoopSystem Phase(Type phase)
        {
            return PlayerLoop.GetCurrentPlayerLoop().subSystemList.First(p => p.type == phase);
        }

        public static List<Type> Flatten(PlayerLoopSystem s)
        {
            var list = new List<Type>();
            Flatten(s, list);
            return list;
        }

        static void Flatten(PlayerLoopSystem s, List<Type> into)
        {
            if (s.type != null) into.Add(s.type);
            if (s.subSystemList != null) foreach (var c in s.subSystemList) Flatten(c, into);
        }

        public static int CountOnitySystems()
        {
            return Flatten(PlayerLoop.GetCurrentPlayerLoop()).Count(Onity.Unity.OnityLoopRunners.IsOnitySystem);
        }
    }
}
