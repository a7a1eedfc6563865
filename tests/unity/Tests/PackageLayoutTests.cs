using System;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Text.RegularExpressions;

namespace Onity.UnityTests
{
    /// <summary>The UPM package and sample project files Unity reads (checked as text: what a
    /// real import does with them needs the editor).</summary>
    public class PackageLayoutTests
    {
        static string Root { get { return Environment.GetEnvironmentVariable("ONITY_REPO_ROOT") ?? Directory.GetCurrentDirectory(); } }

        static string Read(string rel) { return File.ReadAllText(Path.Combine(Root, rel)); }

        [Test]
        public void MetaFiles_EveryAssetHasAStableMeta_SceneScriptGuidsResolve()
        {
            var psi = new ProcessStartInfo("python3", "tests/unity/gen_meta.py --check")
            {
                WorkingDirectory = Root,
                RedirectStandardOutput = true,
                UseShellExecute = false,
            };
            using (var p = Process.Start(psi))
            {
                string output = p.StandardOutput.ReadToEnd();
                p.WaitForExit();
                Assert.True(p.ExitCode == 0, "gen_meta.py --check (run `python3 tests/unity/gen_meta.py` to regenerate):\n" + output);
            }
        }

        [Test]
        public void PackageJson_NameVersionUnityMinimumSamples()
        {
            var json = Read("bindings/package.json");
            Assert.Contains("\"name\": \"com.onity.native\"", json, "name");
            Assert.True(Regex.IsMatch(json, "\"version\": \"\\d+\\.\\d+\\.\\d+\""), "semver version");
            Assert.Contains("\"unity\": \"2022.3\"", json, "Unity 2022.3 minimum");
            foreach (Match m in Regex.Matches(json, "\"path\": \"(Samples~/[^\"]+)\""))
                Assert.True(Directory.Exists(Path.Combine(Root, "bindings", m.Groups[1].Value)), "sample folder " + m.Groups[1].Value);
            Assert.True(File.Exists(Path.Combine(Root, "bindings/CHANGELOG.md")) && File.Exists(Path.Combine(Root, "bindings/LICENSE.md")), "changelog and license");
        }

        [Test]
        public void Asmdefs_RuntimeEngineFree_UnityRefsRuntime_EditorOnlyEditor()
        {
            var rt = Read("bindings/Runtime/Onity.Runtime.asmdef");
            var un = Read("bindings/Runtime/Unity/Onity.Unity.asmdef");
            var ed = Read("bindings/Editor/Onity.Editor.asmdef");
            Assert.Contains("\"noEngineReferences\": true", rt, "Onity.Runtime has no engine references");
            Assert.Contains("\"name\": \"Onity.Unity\"", un, "Onity.Unity name");
            Assert.Contains("\"Onity.Runtime\"", un, "Onity.Unity references Onity.Runtime");
            Assert.Contains("\"Onity.Unity\"", ed, "Onity.Editor references Onity.Unity");
            Assert.True(Regex.IsMatch(ed, "\"includePlatforms\": \\[\\s*\"Editor\"\\s*\\]"), "Onity.Editor is editor-only");
        }

        [Test]
        public void OptionalPackageAsmdefs_CompiledOnlyWithTheirPackage()
        {
            // asmdef -> the package that defines its constraint, and the assemblies it must reference.
            var cases = new[]
            {
                new[] { "bindings/Runtime/Unity/UGUI/Onity.Unity.UGUI.asmdef", "com.unity.ugui", "UnityEngine.UI" },
                new[] { "bindings/Runtime/Unity/TextMeshPro/Onity.Unity.TextMeshPro.asmdef", "com.unity.textmeshpro", "Unity.TextMeshPro" },
                new[] { "bindings/Runtime/Unity/Addressables/Onity.Unity.Addressables.asmdef", "com.unity.addressables", "Unity.Addressables" },
            };
            foreach (var c in cases)
            {
                var text = Read(c[0]);
                var constraints = Regex.Match(text, "\"defineConstraints\":\\s*\\[([^\\]]*)\\]");
                Assert.True(constraints.Success, c[0] + ": defineConstraints");
                var defines = Regex.Matches(text, "\"define\":\\s*\"([^\"]+)\"").Cast<Match>().Select(m => m.Groups[1].Value).Distinct().ToArray();
                Assert.True(defines.Length > 0, c[0] + ": versionDefines");
                foreach (var d in defines)
                    Assert.Contains("\"" + d + "\"", constraints.Groups[1].Value, c[0] + ": the versionDefine " + d + " is a define constraint (no package, no compile)");
                Assert.Contains("\"name\": \"" + c[1] + "\"", text, c[0] + ": detects " + c[1]);
                Assert.Contains("\"" + c[2] + "\"", text, c[0] + ": references " + c[2]);
                Assert.Contains("\"Onity.Unity\"", text, c[0] + ": references Onity.Unity");
            }
            Assert.Contains("\"Unity.ResourceManager\"", Read(cases[2][0]), "Addressables' handles live in Unity.ResourceManager");
        }

        [Test]
        public void SampleProject_Version_Manifest_Scene()
        {
            Assert.True(Read("unity-sample/ProjectSettings/ProjectVersion.txt").StartsWith("m_EditorVersion: 2022.3."), "Unity 2022.3 LTS");
            var manifest = Read("unity-sample/Packages/manifest.json");
            var m = Regex.Match(manifest, "\"com.onity.native\": \"file:([^\"]+)\"");
            Assert.True(m.Success, "package referenced by relative path");
            // file: paths are relative to the Packages folder.
            var pkg = Path.GetFullPath(Path.Combine(Root, "unity-sample/Packages", m.Groups[1].Value));
            Assert.True(File.Exists(Path.Combine(pkg, "package.json")), "manifest path resolves to the package: " + pkg);
            var scene = Read("unity-sample/Assets/Scenes/OnityDemo.unity");
            Assert.Contains("m_Name: Onity Demo", scene, "demo object in the scene");
            Assert.Equal(3, Regex.Matches(scene, "m_Script: \\{fileID: 11500000").Count, "three demo components");
            Assert.Contains("Assets/Scenes/OnityDemo.unity", Read("unity-sample/ProjectSettings/EditorBuildSettings.asset"), "scene in build settings");
        }
    }
}
