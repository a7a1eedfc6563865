// Managed code stripping: a link.xml inside a package is never read (UnityLinker only scans
// Assets/), so the package hands its preservations to the linker through this processor.
using System.IO;
using UnityEditor.Build;
using UnityEditor.Build.Reporting;
using UnityEditor.UnityLinker;

namespace Onity.Editor
{
    /// <summary>Gives UnityLinker the members Onity reaches by reflection: the internal
    /// <c>ExecutionContext.FastCapture</c> and <c>ExecutionContext.Run(..., bool)</c> (the
    /// allocation-free capture the BCL's own async builders use; see <c>OnityContextFlow</c>) and
    /// the <c>s_dummyDefaultEC</c> marker it returns. Without them a stripped player still works,
    /// but context flow falls back to the allocating public <c>ExecutionContext.Capture</c> (a
    /// warning says so at startup). Nothing to copy into Assets/.</summary>
    public sealed class OnityLinkerProcessor : IUnityLinkerProcessor
    {
        /// <summary>The preservations, in UnityLinker's link.xml format.</summary>
        public const string LinkXml =
            "<linker>\n" +
            "  <!-- com.onity.native: OnityContextFlow binds these ExecutionContext internals by reflection. -->\n" +
            "  <assembly fullname=\"mscorlib\">\n" +
            "    <type fullname=\"System.Threading.ExecutionContext\" preserve=\"all\"/>\n" +
            "  </assembly>\n" +
            "</linker>\n";

        public int callbackOrder { get { return 0; } }

        /// <summary>Writes <see cref="LinkXml"/> under the project's Library folder (the editor's
        /// working directory is the project root) and returns its absolute path.</summary>
        public string GenerateAdditionalLinkXmlFile(BuildReport report, UnityLinkerBuildPipelineData data)
        {
            var dir = Path.Combine(Path.GetFullPath("Library"), "com.onity.native");
            Directory.CreateDirectory(dir);
            var path = Path.Combine(dir, "link.xml");
            if (!File.Exists(path) || File.ReadAllText(path) != LinkXml) File.WriteAllText(path, LinkXml);
            return path;
        }
    }
}
