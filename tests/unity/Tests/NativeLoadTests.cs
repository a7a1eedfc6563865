using System;
using System.Diagnostics;
using Debug = UnityEngine.Debug;
using System.IO;
using System.Linq;
using Onity.Unity;
using UnityEngine;

namespace Onity.UnityTests
{
    /// <summary>Scenarios run in a child process (Runner --scenario NAME) whose native library
    /// search path holds a missing, foreign or wrong-ABI libonity. They print KEY=VALUE lines.</summary>
    public static class ChildScenarios
    {
        public static int Run(string name)
        {
            if (name == "fresh-statics") return DomainReload.PrintSnapshot();
            if (name != "native-load") { Console.WriteLine("unknown scenario " + name); return 2; }
            Sim.ResetEngine();
            for (int entry = 1; entry <= 2; entry++)
            {
                Debug.Clear();
                Sim.SetDomainReload(entry == 1); // the editor's default, then domain reload disabled
                Sim.EnterPlayMode();
                Console.WriteLine("entry" + entry + ".errors=" + Debug.Errors.Count);
                Console.WriteLine("entry" + entry + ".exceptions=" + Debug.Exceptions.Count);
                Console.WriteLine("entry" + entry + ".initialized=" + OnityPlayerLoop.IsInitialized);
                Console.WriteLine("entry" + entry + ".systems=" + Sim.CountOnitySystems());
                if (Debug.Errors.Count > 0) Console.WriteLine("entry" + entry + ".error=" + Debug.Errors[0].Replace("\n", " "));
                // Game code awaits anyway: its failure must reach the console, not vanish.
                Awaiting().Forget();
                Sim.RunFrames(3);
                Console.WriteLine("entry" + entry + ".logged=" + string.Join("|", Debug.Exceptions.Select(e => e.GetType().Name)));
                Sim.ExitPlayMode();
            }
            return 0;
        }

        static async OnityTask Awaiting()
        {
            await OnityTask.NextFrame();
        }
    }

    /// <summary>Gap 2: a missing, foreign or wrong-ABI native library gives one actionable error
    /// per Play Mode entry, nothing escapes the RuntimeInitializeOnLoadMethods, and the failures of
    /// later awaits are logged (the unobserved-exception handler is hooked regardless).</summary>
    public class NativeLoadTests
    {
        static string Root { get { return Environment.GetEnvironmentVariable("ONITY_REPO_ROOT") ?? Directory.GetCurrentDirectory(); } }

        static string RunChild(string libSource)
        {
            var dir = Path.Combine(Path.GetTempPath(), "onity-native-load-" + Guid.NewGuid().ToString("N"));
            Directory.CreateDirectory(dir);
            try
            {
                if (libSource != null)
                {
                    File.WriteAllText(Path.Combine(dir, "lib.c"), libSource);
                    var cc = Process.Start(new ProcessStartInfo("gcc", "-shared -fPIC -o libonity.so lib.c") { WorkingDirectory = dir, UseShellExecute = false });
                    cc.WaitForExit();
                    Assert.Equal(0, cc.ExitCode, "gcc built the stand-in library");
                }
                var psi = ChildMono.Start("--scenario native-load");
                psi.WorkingDirectory = dir;
                psi.EnvironmentVariables["LD_LIBRARY_PATH"] = dir; // not the real library's folder
                using (var p = Process.Start(psi))
                {
                    string output = p.StandardOutput.ReadToEnd();
                    p.WaitForExit();
                    Assert.Equal(0, p.ExitCode, "child exit code; output:\n" + output);
                    return output;
                }
            }
            finally
            {
                try { Directory.Delete(dir, true); } catch (IOException) { }
            }
        }

        static string Value(string output, string key)
        {
            foreach (var line in output.Split('\n'))
                if (line.StartsWith(key + "=")) return line.Substring(key.Length + 1).TrimEnd('\r');
            throw new AssertionException("no " + key + " in the child's output:\n" + output);
        }

        static void CheckBothEntries(string output, string reason)
        {
            for (int e = 1; e <= 2; e++)
            {
                string p = "entry" + e;
                Assert.Equal("1", Value(output, p + ".errors"), p + ": exactly one error");
                Assert.Equal("0", Value(output, p + ".exceptions"), p + ": nothing escaped the initialisation");
                Assert.Equal("False", Value(output, p + ".initialized"), p + ": not initialised");
                Assert.Equal("0", Value(output, p + ".systems"), p + ": no systems injected");
                var err = Value(output, p + ".error");
                Assert.Contains(reason, err, p + ": says what is wrong");
                Assert.Contains("the Linux editor (x86_64)", err, p + ": names the platform");
                Assert.Contains("Plugins/x86_64/libonity.so", err, p + ": names the file");
                Assert.Contains("scripts/build-plugins.sh", err, p + ": says how to build it");
                Assert.Contains("Add package from tarball", err, p + ": says how to install it");
                Assert.Contains("a git URL install has no binaries", err, p + ": says why a git URL install fails");
                Assert.Contains("InvalidOperationException", Value(output, p + ".logged"), p + ": the failed await is logged");
            }
        }

        [Test]
        public void MissingLibrary_OneActionableErrorPerEntry_AwaitFailuresLogged()
        {
            var output = RunChild(null);
            CheckBothEntries(output, "was not found or could not be loaded");
            Assert.Contains("DllNotFoundException", Value(output, "entry1.error"), "the loader's reason is kept");
        }

        [Test]
        public void ForeignLibrary_NoEntryPoint_OneActionableErrorPerEntry()
        {
            var output = RunChild("int not_onity(void) { return 0; }\n");
            CheckBothEntries(output, "is not libonity");
            Assert.Contains("EntryPointNotFoundException", Value(output, "entry1.error"), "the loader's reason is kept");
        }

        [Test]
        public void AbiMajorMismatch_OneActionableErrorPerEntry()
        {
            var output = RunChild("unsigned onity_abi_version(void) { return 2u << 16; }\n");
            for (int e = 1; e <= 2; e++)
            {
                string p = "entry" + e;
                Assert.Equal("1", Value(output, p + ".errors"), p + ": exactly one error");
                Assert.Equal("0", Value(output, p + ".exceptions"), p + ": nothing escaped");
                var err = Value(output, p + ".error");
                Assert.Contains("has ABI 2.0 but this C# package needs 1.", err, p + ": both versions");
                Assert.Contains("different releases", err, p + ": what it means");
                Assert.Contains("InvalidOperationException", Value(output, p + ".logged"), p + ": the failed await is logged");
            }
        }
    }
}
