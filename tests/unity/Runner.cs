using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;
using System.Reflection;

namespace Onity.UnityTests
{
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

        public static void Contains(string needle, string hay, string what = "text")
        {
            if (hay == null || hay.IndexOf(needle, StringComparison.Ordinal) < 0)
                throw new AssertionException(what + ": expected to contain \"" + needle + "\", got \"" + hay + "\"");
        }
    }

    /// <summary>Runs every [Test] method of this assembly (filters: substrings on the command
    /// line; -v lists passes), with a fresh simulated engine for each, and prints
    /// "N passed, N failed".</summary>
    public static class Runner
    {
        public static int Main(string[] args)
        {
            var filters = args.Where(a => !a.StartsWith("-")).ToArray();
            bool verbose = args.Contains("-v");
            UnityEngine.Debug.Echo = args.Contains("-log");
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
                try
                {
                    Sim.ResetEngine();
                    object target = m.IsStatic ? null : Activator.CreateInstance(m.DeclaringType);
                    m.Invoke(target, null);
                    passed++;
                    if (verbose) Console.WriteLine("PASS " + name + " (" + sw.ElapsedMilliseconds + " ms)");
                }
                catch (TargetInvocationException tie)
                {
                    failed++;
                    Console.WriteLine("FAIL " + name + ": " + tie.InnerException);
                }
                catch (Exception ex)
                {
                    failed++;
                    Console.WriteLine("FAIL " + name + ": " + ex);
                }
                finally
                {
                    try
                    {
                        Sim.ResetEngine();
                        Onity.Unity.OnityPlayerLoop.Shutdown();
                    }
                    catch (Exception ex) { Console.WriteLine("cleanup after " + name + ": " + ex); }
                }
            }
            Console.WriteLine(passed + " passed, " + failed + " failed");
            return failed == 0 ? 0 : 1;
        }
    }
}
