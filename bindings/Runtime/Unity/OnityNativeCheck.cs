// Is the native library there, loadable on this platform and of the binding's ABI? Asked once
// before the Play Mode runtime is created, so that a missing or wrong plugin gives one error that
// says which file is missing and how to get it, instead of an exception escaping Unity's
// [RuntimeInitializeOnLoadMethod] and every later await faulting.
#if UNITY_5_3_OR_NEWER || ONITY_UNITY_STANDIN
using System;
using Onity.Native;

namespace Onity.Unity
{
    public static class OnityNativeCheck
    {
        /// <summary>The platform this build runs on and the plugin file it loads, relative to the
        /// package (from the scripting defines Unity sets).</summary>
        public static string Platform
        {
            get
            {
#if UNITY_EDITOR_WIN
                return "the Windows editor (x86_64)";
#elif UNITY_EDITOR_OSX
                return "the macOS editor";
#elif UNITY_EDITOR_LINUX
                return "the Linux editor (x86_64)";
#elif UNITY_STANDALONE_WIN
                return "Windows players (x86_64)";
#elif UNITY_STANDALONE_OSX
                return "macOS players";
#elif UNITY_STANDALONE_LINUX
                return "Linux players (x86_64)";
#elif UNITY_IOS
                return "iOS";
#elif UNITY_ANDROID && ENABLE_IL2CPP
                return "Android (ARM64, IL2CPP)";
#elif UNITY_ANDROID
                return "Android (ARM64, Mono)";
#elif UNITY_WEBGL
                return "WebGL";
#else
                return "this platform";
#endif
            }
        }

        public static string PluginFile
        {
            get
            {
#if UNITY_EDITOR_WIN || (UNITY_STANDALONE_WIN && !UNITY_EDITOR)
                return "Plugins/x86_64/onity.dll";
#elif UNITY_EDITOR_OSX || (UNITY_STANDALONE_OSX && !UNITY_EDITOR)
                return "Plugins/macOS/libonity.dylib (x86_64 + arm64)";
#elif UNITY_EDITOR_LINUX || (UNITY_STANDALONE_LINUX && !UNITY_EDITOR)
                return "Plugins/x86_64/libonity.so";
#elif UNITY_IOS
                return "Plugins/iOS/libonity.a (linked statically)";
#elif UNITY_ANDROID && ENABLE_IL2CPP
                return "Plugins/Android/arm64-v8a/libonity.a (linked statically by IL2CPP); the player must target ARM64 (Player Settings > Target Architectures)";
#elif UNITY_ANDROID
                return AndroidMono;
#elif UNITY_WEBGL
                return "none: WebGL is not supported (no WebGL build of libonity exists; see the package README)";
#else
                return "a libonity build for this platform";
#endif
            }
        }

        /// <summary>What an Android player built with the Mono scripting backend needs: Unity's Mono
        /// players load only shared libraries, and the package ships the static library (which
        /// IL2CPP links into the player).</summary>
        public const string AndroidMono =
            "Plugins/Android/arm64-v8a/libonity.so, which no package ships: with the Mono scripting backend Unity loads only shared libraries on Android, "
            + "and the package's static library (Plugins/Android/arm64-v8a/libonity.a) is linked by IL2CPP alone. Either set Player Settings > "
            + "Other Settings > Scripting Backend to IL2CPP (nothing else to do), or link libonity.so from that libonity.a with the Android NDK and put it, "
            + "with Plugins~/Android/arm64-v8a/libonity.so.meta, under Assets/ (Plugins~/README.md); the player must target ARM64";

        /// <summary>Null when the native library loads and its ABI major equals the binding's (and
        /// its minor is at least the binding's); otherwise the error to show, naming the missing
        /// file, the platform and what to do.</summary>
        public static string Problem()
        {
            uint abi;
            try
            {
                abi = OnityNativeCalls.onity_abi_version();
            }
            catch (DllNotFoundException e) { return Message("was not found or could not be loaded", e); }
            catch (EntryPointNotFoundException e) { return Message("was loaded but is not libonity (it has no onity_abi_version)", e); }
            catch (BadImageFormatException e) { return Message("is for another CPU architecture or platform", e); }
            uint want = OnityNative.ONITY_ABI_VERSION;
            if (abi >> 16 != want >> 16 || (abi & 0xFFFF) < (want & 0xFFFF))
            {
                return "Onity: the native library for " + Platform + " has ABI " + (abi >> 16) + "." + (abi & 0xFFFF)
                    + " but this C# package needs " + (want >> 16) + "." + (want & 0xFFFF)
                    + " (same major, at least that minor): the plugin and the package come from different releases. "
                    + "Replace " + PluginFile + " with the one from the same release as the package (reinstall the release tarball, "
                    + "or run scripts/build-plugins.sh in the repository the package came from), then restart the editor "
                    + "(it keeps a native plugin loaded once loaded). Onity is not running: every Onity await fails until then.";
            }
            return null;
        }

        static string Message(string what, Exception e)
        {
#if UNITY_ANDROID && !ENABLE_IL2CPP && !UNITY_EDITOR
            return "Onity: the native library for " + Platform + " " + what + ". This player needs " + AndroidMono
                + ". Onity is not running: every Onity await fails until then. (" + e.GetType().Name + ": " + e.Message + ")";
#else
            return "Onity: the native library for " + Platform + " " + what + ". Expected in the com.onity.native package: "
                + PluginFile + ", with its .meta enabling " + Platform + ". "
                + "Install the release tarball com.onity.native-<version>.tgz (Package Manager > + > Add package from tarball...), which ships the editor, desktop, "
                + "iOS and Android (IL2CPP) plugins with their import settings, or build them from the repository with scripts/build-plugins.sh (a git URL install has no binaries). "
                + "Restart the editor after adding or replacing a native plugin. Onity is not running: every Onity await fails until then. ("
                + e.GetType().Name + ": " + e.Message + ")";
#endif
        }
    }
}
#endif
