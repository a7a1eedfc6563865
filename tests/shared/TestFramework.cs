using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;
using System.Reflection;

// The test framework both C# test programs compile in: tests/csharp (the binding under Mono) and
// tests/unity (the Unity package against the UnityEngine stand-in, built with
// -define:ONITY_UNITY_TESTS). Each program's Runner.Main calls TestRunner.Run with its own setup
// and cleanup.
#if ONITY_UNITY_TESTS
namespace Onity.UnityTests
#else
namespace Onity.Tests
#endif
{
    /// <summary>Marks a test: a public static or instance method without parameters.</summary>
    [AttributeUsage(AttributeTargets.Method)]
    public sealed class TestAttribute : Attribute { }

    public sealed class AssertionException : Exception
    {
        public AssertionException(string message) : base(message) { }
    }

    public static class Assert
    {
        public static void True(bool cond, string what = "condition")
        {
            if (!cond) throw new AssertionException("expected true: " + what);
        }

        public static void False(bool cond, string what = "condition")
        {
            if (cond) throw new AssertionException("expected false: " + what);
        }

        public static void Equal<T>(T expected, T actual, string what = "value")
        {
            if (!EqualityComparer<T>.Default.Equals(expected, actual))
                throw new AssertionException(what + ": expected <" + expected + ">, got <" + actual + ">");
        }

        public static TEx Throws<TEx>(Action a, string what = "action") where TEx : Exception
        {
            try { a(); }
            catch (TEx ex) { return ex; }
            catch (Exception ex) { throw new AssertionException(what + ": expected " + typeof(TEx).Name + ", got " + ex.GetType().Name + ": " + ex.Message); }
            throw new AssertionException(what + ": expected " + typeof(TEx).Name + ", nothing thrown");
        }

        /// <summary>Case-insensitive substring check (messages and logs).</summary>
        public static void Contains(string needle, string hay, string what = "text")
        {
            if (hay == null || hay.IndexOf(needle, StringComparison.OrdinalIgnoreCase) < 0)
                throw new AssertionException(what + ": expected to contain \"" + needle + "\", got \"" + hay + "\"");
        }
    }

    /// <summary>A child process running this test program again (a scenario flag in
    /// <paramref name="args"/>), under the runtime options the suite runs with:
    /// ONITY_TEST_MONO_OPTIONS (scripts/test-csharp-aot.sh sets "--full-aot", so that children run
    /// without a JIT too), then --debug.</summary>
    public static class ChildMono
    {
        /// <summary>Whether the suite runs without a JIT (ONITY_TEST_MONO_OPTIONS has --full-aot).</summary>
        public static bool FullAot
        {
            get
            {
                var options = Environment.GetEnvironmentVariable("ONITY_TEST_MONO_OPTIONS");
                return options != null && options.Contains("--full-aot");
            }
        }

        public static ProcessStartInfo Start(string args)
        {
            var options = Environment.GetEnvironmentVariable("ONITY_TEST_MONO_OPTIONS");
            var exe = Assembly.GetExecutingAssembly().Location;
            return new ProcessStartInfo("mono", (string.IsNullOrEmpty(options) ? "" : options + " ") + "--debug \"" + exe + "\" " + args)
            {
                UseShellExecute = false,
                RedirectStandardOutput = true,
            };
        }
    }

    public static class TestRunner
    {
        /// <summary>Runs every [Test] method of the calling program's assembly (filters: substrings
        /// of "Class.Method" on the command line; -v lists passes), calling
        /// <paramref name="beforeEach"/> and <paramref name="afterEach"/> (either may be null)
        /// around each, prints every failure and then "N passed, N failed". Returns the exit code.</summary>
        public static int Run(string[] args, Action beforeEach, Action afterEach)
        {
            var filters = args.Where(a => !a.StartsWith("-")).ToArray();
            bool verbose = args.Contains("-v");
            var tests = Assembly.GetExecutingAssembly().GetTypes()
                .SelectMany(t => t.GetMethods(BindingFlags.Public | BindingFlags.Static | BindingFlags.Instance | BindingFlags.DeclaredOnly))
                .Where(m => m.GetCustomAttributes(typeof(TestAttribute), false).Length > 0)
                .OrderBy(m => m.DeclaringType.FullName).ThenBy(m => m.Name)
                .ToList();
            int passed = 0, failed = 0;
            foreach (var m in tests)
            {
                string name = m.DeclaringType.Name + "." + m.Name;
                if (filters.Length > 0 && !filters.Any(f => name.IndexOf(f, StringComparison.OrdinalIgnoreCase) >= 0)) continue;
                var sw = Stopwatch.StartNew();
                bool ok = false;
                try
                {
                    if (beforeEach != null) beforeEach();
                    object target = m.IsStatic ? null : Activator.CreateInstance(m.DeclaringType);
                    m.Invoke(target, null);
                    ok = true;
                }
                catch (TargetInvocationException tie)
                {
                    Console.WriteLine("FAIL " + name + ": " + tie.InnerException);
                }
                catch (Exception ex)
                {
                    Console.WriteLine("FAIL " + name + ": " + ex);
                }
                finally
                {
                    try
                    {
                        if (afterEach != null) afterEach();
                    }
                    catch (Exception ex)
                    {
                        // A test that leaves state its cleanup cannot undo fails (counted once).
                        if (ok) Console.WriteLine("FAIL " + name + " (cleanup): " + ex);
                        else Console.WriteLine("  and its cleanup failed too: " + ex);
                        ok = false;
                    }
                }
                if (ok)
                {
                    passed++;
                    if (verbose) Console.WriteLine("PASS " + name + " (" + sw.ElapsedMilliseconds + " ms)");
                }
                else failed++;
            }
            Console.WriteLine(passed + " passed, " + failed + " failed");
            return failed == 0 ? 0 : 1;
        }
    }
}
