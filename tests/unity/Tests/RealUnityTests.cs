using System;
using System.Collections.Generic;
using System.Diagnostics;
using Debug = UnityEngine.Debug;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Text.RegularExpressions;
using System.Threading;
using System.Xml;
using Onity.Unity;
using UnityEditor;
using UnityEngine;
using UnityEngine.LowLevel;
using PL = UnityEngine.PlayerLoop;

namespace Onity.UnityTests
{
    /// <summary>What real Unity 2022.3 does that an earlier stand-in did not (issue 18's gaps 1, 3,
    /// 6, 7 and 9; gap 2 is NativeLoadTests, gap 5 ClassStateMachineTests, gap 4 the
    /// ENABLE_IL2CPP run of the C# suite).</summary>
    public class RealUnityTests
    {
        static string Root { get { return Environment.GetEnvironmentVariable("ONITY_REPO_ROOT") ?? Directory.GetCurrentDirectory(); } }

        static string Read(string rel) { return File.ReadAllText(Path.Combine(Root, rel)); }

        static string Git(string args)
        {
            var psi = new ProcessStartInfo("git", args) { WorkingDirectory = Root, UseShellExecute = false, RedirectStandardOutput = true };
            using (var p = Process.Start(psi))
            {
                string o = p.StandardOutput.ReadToEnd();
                p.WaitForExit();
                return p.ExitCode == 0 ? o : null;
            }
        }

        // ---- gap 1: plugin import settings survive Unity's deletion of orphaned metas ----------

        [Test]
        public void Gap1_PluginMetaTemplatesLiveInPluginsTilde_NothingCommittedUnderPlugins()
        {
            foreach (var rel in new[] { "x86_64/libonity.so", "x86_64/onity.dll", "macOS/libonity.dylib", "Android/arm64-v8a/libonity.so", "iOS/libonity.a" })
                Assert.True(File.Exists(Path.Combine(Root, "bindings/Plugins~", rel + ".meta")), "template for " + rel);
            Assert.True(File.Exists(Path.Combine(Root, "bindings/Plugins~/Plugins.meta")), "template of the Plugins folder meta");
            Assert.Contains("OS: Linux", Read("bindings/Plugins~/x86_64/libonity.so.meta"), "Linux editor");
            Assert.Contains("Standalone: Win64\n    second:\n      enabled: 1", Read("bindings/Plugins~/x86_64/onity.dll.meta"), "Win64 player");
            Assert.Contains("CPU: ARM64", Read("bindings/Plugins~/Android/arm64-v8a/libonity.so.meta"), "Android ARM64");
            Assert.Contains("iPhone: iOS", Read("bindings/Plugins~/iOS/libonity.a.meta"), "iOS");
            Assert.Contains("Editor: Editor\n    second:\n      enabled: 1\n      settings:\n        CPU: AnyCPU", Read("bindings/Plugins~/macOS/libonity.dylib.meta"), "macOS editor, both CPUs");
            var ignore = Read(".gitignore");
            Assert.Contains("/bindings/Plugins/", ignore, "generated Plugins folder ignored");
            Assert.Contains("/bindings/Plugins.meta", ignore, "its folder meta ignored");
            var tracked = Git("ls-files bindings/Plugins bindings/Plugins.meta");
            if (tracked != null) Assert.Equal("", tracked.Trim(), "nothing committed where Unity would delete orphaned metas");
            // The build script copies each template beside its binary (and only then).
            var script = Read("scripts/build-plugins.sh");
            Assert.Contains("cp \"$TPL/$rel.meta\" \"$PLUG/$rel.meta\"", script, "meta placed with the binary");
        }

        // ---- gap 3: link.xml through IUnityLinkerProcessor -----------------------------------

        [Test]
        public void Gap3_LinkerProcessorHandsTheLinkerALinkXml_KeepingWhatContextFlowReflects()
        {
            Assert.False(File.Exists(Path.Combine(Root, "bindings/Runtime/link.xml")), "no link.xml left in the package (never applied there)");
            UnityEditor.Build.IUnityLinkerProcessor p = new Onity.Editor.OnityLinkerProcessor();
            var project = Path.Combine(Path.GetTempPath(), "onity-project-" + Guid.NewGuid().ToString("N"));
            Directory.CreateDirectory(project);
            var cwd = Environment.CurrentDirectory;
            string path;
            try
            {
                Environment.CurrentDirectory = project; // the editor runs in the project root
                path = p.GenerateAdditionalLinkXmlFile(new UnityEditor.Build.Reporting.BuildReport(),
                    new UnityEditor.UnityLinker.UnityLinkerBuildPipelineData(BuildTarget.iOS, Path.Combine(project, "Temp")));
                Assert.Equal(path, p.GenerateAdditionalLinkXmlFile(null, null), "same file every build");
            }
            finally { Environment.CurrentDirectory = cwd; }
            try
            {
                Assert.True(Path.IsPathRooted(path), "absolute path: " + path);
                Assert.True(path.StartsWith(Path.Combine(Path.GetFullPath(project), "Library")), "under the project's Library: " + path);
                var doc = new XmlDocument();
                doc.Load(path);
                var type = doc.SelectSingleNode("/linker/assembly[@fullname='mscorlib']/type[@fullname='System.Threading.ExecutionContext']");
                Assert.True(type != null, "ExecutionContext listed");
                Assert.Equal("all", type.Attributes["preserve"].Value, "every member kept");
                // The members OnityContextFlow binds are ExecutionContext's.
                var ec = typeof(ExecutionContext);
                Assert.True(ec.GetMethod("FastCapture", BindingFlags.NonPublic | BindingFlags.Static, null, Type.EmptyTypes, null) != null, "FastCapture is ExecutionContext's");
                Assert.True(OnityContextFlow.UsesFastCapture, "and is what context flow uses");
                Assert.Equal(0, p.callbackOrder, "callbackOrder");
            }
            finally { Directory.Delete(project, true); }
            Assert.False(Read("bindings/README.md").Contains("copy it into the project's `Assets`"), "README no longer asks for a copy (duplicate GUID)");
        }

        // ---- gap 6: modules and asmdefs ------------------------------------------------------

        static readonly Dictionary<int, string> ModuleOfClassId = new Dictionary<int, string>
        {
            { 81, "com.unity.modules.audio" },   // AudioListener
            { 82, "com.unity.modules.audio" },   // AudioSource
            { 54, "com.unity.modules.physics" }, // Rigidbody
            { 65, "com.unity.modules.physics" }, // BoxCollider
            { 95, "com.unity.modules.animation" }, // Animator
        };

        [Test]
        public void Gap6_SceneComponentsHaveTheirModules_ImguiDeclared_EditorAsmdefNotAutoReferenced()
        {
            var manifest = Read("unity-sample/Packages/manifest.json");
            foreach (Match m in Regex.Matches(Read("unity-sample/Assets/Scenes/OnityDemo.unity"), @"^--- !u!(\d+) ", RegexOptions.Multiline))
            {
                string module;
                if (ModuleOfClassId.TryGetValue(int.Parse(m.Groups[1].Value), out module))
                    Assert.Contains("\"" + module + "\"", manifest, "class " + m.Groups[1].Value + " in the scene needs " + module);
            }
            bool usesImgui = Directory.GetFiles(Path.Combine(Root, "bindings"), "*.cs", SearchOption.AllDirectories)
                .Any(f => Regex.IsMatch(File.ReadAllText(f), @"\b(GUILayout|EditorGUILayout|GUI)\."));
            Assert.True(usesImgui, "the package uses IMGUI (the runtime monitor window)");
            Assert.True(Regex.IsMatch(Read("bindings/package.json"), "\"dependencies\":\\s*\\{[^}]*\"com.unity.modules.imgui\""), "package.json declares com.unity.modules.imgui");
            Assert.Contains("\"autoReferenced\": false", Read("bindings/Editor/Onity.Editor.asmdef"), "editor asmdef not auto-referenced");
        }

        // ---- gap 7: one runtime per Play Mode entry, domain reload on or off ---------------------

        [Test]
        public void Gap7_DomainReloadOnOrOff_OneRuntimePerEntry()
        {
            // A reload resets the package's statics (its events too): the handler is hooked as a
            // game hooks it, at SubsystemRegistration of every entry.
            Sim.InitNamespaces.Add("ReloadProofHooks");
            ReloadProofHooks.CountCreated.Created = 0;
            try
            {
                foreach (bool reload in new[] { true, true, false, false, true })
                {
                    Sim.SetDomainReload(reload);
                    int reloads = Sim.DomainReloads, count = OnityPlayerLoop.InitializeCount, before = ReloadProofHooks.CountCreated.Created;
                    Sim.InitCalls.Clear();
                    Sim.EnterPlayMode();
                    string c = reload ? "domain reload on" : "domain reload off";
                    Assert.Equal(reload ? reloads + 1 : reloads, Sim.DomainReloads, c + ": the simulation reloaded the domain or not");
                    int iol;
                    Sim.InitCalls.TryGetValue("InitializeOnLoad", out iol);
                    Assert.Equal(reload ? 1 : 0, Math.Min(iol, 1), c + ": [InitializeOnLoadMethod]s ran at entry (with isPlaying true) or not");
                    Assert.Equal(reload ? 1 : count + 1, OnityPlayerLoop.InitializeCount, c + ": one initialisation per entry (per domain)");
                    Assert.Equal(before + 1, ReloadProofHooks.CountCreated.Created, c + ": one RuntimeCreated per entry");
                    Assert.True(OnityPlayerLoop.IsInitialized, c + ": initialised");
                    Assert.Equal(15, Sim.CountOnitySystems(), c + ": one set of systems");
                    var got = new List<string>();
                    Probe.Create().OnUpdate.Enqueue(_ => Track(OnityTask.NextFrame(), got).Forget());
                    Sim.RunFrames(3);
                    Assert.Equal("done", string.Join(",", got), c + ": runs");
                    Assert.Equal(0, Debug.Exceptions.Count + Debug.Errors.Count, c + ": nothing logged");
                    Sim.ExitPlayMode();
                    Assert.Equal(0, Sim.CountOnitySystems(), c + ": removed at exit");
                }
            }
            finally { ReloadProofHooks.CountCreated.Unhook(); }
        }

        static async OnityTask Track(OnityTask w, List<string> log)
        {
            await w;
            log.Add("done");
        }

        [Test]
        public void Gap7_DomainReloadOff_LeftoverFromAMissedExitIsStillCleanedAtSubsystemRegistration()
        {
            Sim.SetDomainReload(false);
            Sim.EnterPlayMode();
            var stale = OnityPlayerLoop.Runtime;
            Sim.ExitPlayMode(raiseEvents: false);
            Sim.EnterPlayMode();
            Assert.True(stale.IsDisposed, "the previous session's runtime is destroyed");
            Assert.True(!ReferenceEquals(stale, OnityPlayerLoop.Runtime) && OnityPlayerLoop.IsInitialized, "a new one runs");
            Assert.Equal(15, Sim.CountOnitySystems(), "one set of systems");
        }

        /// <summary>Game code that configures Onity from a SubsystemRegistration method (as
        /// <c>OnityPlayerLoop.DefaultTimings</c>' docs suggest) must see the same thing whether or not
        /// the entry reloads the domain, and the same as in a player: the entry's runtime created
        /// after it, with its settings, and announced to its <c>RuntimeCreated</c> handler.</summary>
        [Test]
        public void Gap7_SettingsAndHandlersFromSubsystemRegistration_ApplyToTheEntrysRuntime_ReloadOnOrOff()
        {
            Sim.InitNamespaces.Add("UserSubsystemHooks");
            int capacity = OnityPlayerLoop.SubmitCapacity;
            try
            {
                foreach (bool reload in new[] { true, false, true })
                {
                    string c = reload ? "domain reload on" : "domain reload off";
                    Sim.SetDomainReload(reload);
                    UserSubsystemHooks.GameSetup.Created.Clear();
                    Sim.EnterPlayMode();
                    Sim.RunFrames(2);
                    Assert.Equal(1, UserSubsystemHooks.GameSetup.Created.Count, c + ": RuntimeCreated raised once for a handler added at SubsystemRegistration");
                    Assert.True(ReferenceEquals(UserSubsystemHooks.GameSetup.Created[0], OnityPlayerLoop.Runtime), c + ": for the runtime that runs");
                    Assert.Equal(4096, UserSubsystemHooks.GameSetup.CapacityAtCreation, c + ": created after SubsystemRegistration set SubmitCapacity");
                    Assert.Equal(OnityLoopTimings.Minimum, OnityPlayerLoop.InjectedTimings, c + ": DefaultTimings set at SubsystemRegistration injected");
                    Assert.Equal(0, Debug.Exceptions.Count + Debug.Errors.Count, c + ": nothing logged");
                    Sim.ExitPlayMode();
                }
            }
            finally
            {
                UserSubsystemHooks.GameSetup.Unhook();
                OnityPlayerLoop.SubmitCapacity = capacity;
            }
        }

        // ---- gap 9: the stand-in throws and returns what Unity does ------------------------------

        [Test]
        public void Gap9_DestroyCancellationTokenOfADestroyedObject_ThrowsMissingReferenceException()
        {
            StandInVersion.Patch = 40; // 2022.3.40f1 and later (DestroyTokenTests: earlier ones)
            Sim.EnterPlayMode();
            var probe = Probe.Create();
            var ct = probe.destroyCancellationToken; // asked before the destruction: canceled by it
            UnityEngine.Object.Destroy(probe.gameObject);
            Sim.ProcessDestroys();
            Assert.True(ct.IsCancellationRequested, "the token taken before is canceled");
            var late = Probe.Create("late");
            UnityEngine.Object.Destroy(late.gameObject);
            Sim.ProcessDestroys();
            var e = Assert.Throws<MissingReferenceException>(() => { var t = late.destroyCancellationToken; }, "first asked after the destruction");
            Assert.Contains("DestroyCancellation token should be called atleast once before destroying the monobehaviour object", e.Message, "Unity's message");
            Assert.True(e is SystemException, "a SystemException, as Unity's");
        }

        [Test]
        public void Gap9_LeafSystemsAndEmptiedListsComeBackNull_OnityInjectsIntoAnEmptiedPhase()
        {
            foreach (var loop in new[] { PlayerLoop.GetDefaultPlayerLoop(), PlayerLoop.GetCurrentPlayerLoop() })
                foreach (var phase in loop.subSystemList)
                    foreach (var leaf in phase.subSystemList)
                        Assert.True(leaf.subSystemList == null, leaf.type.Name + ": a leaf has subSystemList == null");
            // A phase set with an empty list reads back null, as Unity's flat native loop gives it.
            var l = PlayerLoop.GetCurrentPlayerLoop();
            int u = Array.FindIndex(l.subSystemList, p => p.type == typeof(PL.PreUpdate));
            l.subSystemList[u].subSystemList = new PlayerLoopSystem[0];
            PlayerLoop.SetPlayerLoop(l);
            Assert.True(Sim.Phase(typeof(PL.PreUpdate)).subSystemList == null, "emptied phase reads back null");
            Sim.EnterPlayMode();
            OnityPlayerLoop.Initialize(OnityLoopTimings.PreUpdate | OnityLoopTimings.LastPreUpdate | OnityLoopTimings.Update);
            var pre = Sim.Phase(typeof(PL.PreUpdate)).subSystemList;
            Assert.Equal(2, pre.Length, "PreUpdate and LastPreUpdate injected into the null list");
            var got = new List<string>();
            Track(OnityTask.NextFrame(OnityTiming.PreUpdate), got).Forget();
            Sim.RunFrames(2);
            Assert.Equal("done", string.Join(",", got), "runs from the once-empty phase");
            OnityPlayerLoop.Shutdown();
            Assert.True(Sim.Phase(typeof(PL.PreUpdate)).subSystemList == null, "removing Onity's systems empties it: null again");
            Assert.Equal(0, Sim.CountOnitySystems(), "all removed");
        }

        [Test]
        public void Gap9_DefaultLoopHasNoObsoletePhaseTypes_InitializationStartsWithProfilerStartFrame()
        {
            var loop = PlayerLoop.GetDefaultPlayerLoop();
            foreach (var t in Sim.Flatten(loop))
                Assert.False(t.GetCustomAttributes(typeof(ObsoleteAttribute), false).Length > 0, t.FullName + " is obsolete in 2022.3 and not in its loop");
            Assert.Equal(typeof(PL.Initialization.ProfilerStartFrame), Sim.Phase(typeof(PL.Initialization)).subSystemList[0].type, "2022.3's first Initialization system");
            foreach (var name in new[] { "PlayerUpdateTime" })
            {
                var t = typeof(PL.Initialization).GetNestedType(name);
                var o = (ObsoleteAttribute)t.GetCustomAttributes(typeof(ObsoleteAttribute), false).Single();
                Assert.True(o.IsError, "Initialization." + name + " is [Obsolete(error)] as in Unity");
            }
            var pf = (ObsoleteAttribute)typeof(PL.EarlyUpdate).GetNestedType("ProfilerStartFrame").GetCustomAttributes(typeof(ObsoleteAttribute), false).Single();
            Assert.True(pf.IsError, "EarlyUpdate.ProfilerStartFrame is [Obsolete(error)] as in Unity");
        }
    }
}

namespace UserSubsystemHooks
{
    using System.Collections.Generic;
    using Onity;
    using Onity.Unity;
    using UnityEngine;

    /// <summary>A game's Onity setup in a SubsystemRegistration method (run by the simulation only
    /// when a test adds this namespace to Sim.InitNamespaces).</summary>
    public static class GameSetup
    {
        public static readonly List<OnityRuntime> Created = new List<OnityRuntime>();
        public static int CapacityAtCreation;

        [RuntimeInitializeOnLoadMethod(RuntimeInitializeLoadType.SubsystemRegistration)]
        static void Configure()
        {
            OnityPlayerLoop.SubmitCapacity = 4096;
            OnityPlayerLoop.DefaultTimings = OnityLoopTimings.Minimum;
            OnityPlayerLoop.RuntimeCreated -= OnCreated;
            OnityPlayerLoop.RuntimeCreated += OnCreated;
        }

        static void OnCreated(OnityRuntime rt)
        {
            Created.Add(rt);
            CapacityAtCreation = OnityPlayerLoop.SubmitCapacity;
        }

        public static void Unhook() { OnityPlayerLoop.RuntimeCreated -= OnCreated; }
    }
}

namespace ReloadProofHooks
{
    using Onity;
    using Onity.Unity;
    using UnityEngine;

    /// <summary>Counts RuntimeCreated across entries with and without domain reload: hooked at
    /// SubsystemRegistration, where a game hooks it (run only when a test adds this namespace to
    /// Sim.InitNamespaces). Its counter is test state, which no reload resets.</summary>
    public static class CountCreated
    {
        public static int Created;

        [RuntimeInitializeOnLoadMethod(RuntimeInitializeLoadType.SubsystemRegistration)]
        static void Hook()
        {
            OnityPlayerLoop.RuntimeCreated -= OnCreated;
            OnityPlayerLoop.RuntimeCreated += OnCreated;
        }

        static void OnCreated(OnityRuntime rt) { Created++; }

        public static void Unhook() { OnityPlayerLoop.RuntimeCreated -= OnCreated; }
    }
}
