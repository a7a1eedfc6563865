using System;
using System.Runtime.InteropServices;
using System.Text;
using Onity.Native;

namespace Onity.Tests
{
    /// <summary>One source for the enums that cross the boundary: the Rust definitions in src/ffi.
    /// include/onity.h is cbindgen's output of them (tests/header.rs fails when it is stale);
    /// Native/OnityNative.Enums.g.cs is generated from the header (scripts/test-csharp.sh runs
    /// scripts/gen_csharp_native.py --check first); these tests fail when a public C# enum or the
    /// binding's wait kinds differ from the generated native enums, and check the generated enums
    /// against what the library built from the Rust code reports (status texts, timing and pool
    /// names), and the fast lane's records against the library's layout. include/onity.hpp is
    /// checked against the header by tests/cpp/enum_check.hpp.</summary>
    public class EnumTests
    {
        /// <summary>Every member of <paramref name="native"/> has a member of <paramref name="pub"/>
        /// with the same value, named <c>publicNames[k]</c> where <c>nativeNames[k]</c> is the native
        /// name (the native name itself when the maps are null), and <paramref name="pub"/> has no
        /// other member.</summary>
        static void SameMembers(Type pub, Type native, string[] nativeNames, string[] publicNames)
        {
            string[] nn = Enum.GetNames(native);
            Assert.Equal(nn.Length, Enum.GetNames(pub).Length, pub.Name + ": members (native " + native.FullName + ": " + string.Join(", ", nn) + ")");
            foreach (string n in nn)
            {
                int k = nativeNames == null ? -1 : Array.IndexOf(nativeNames, n);
                Assert.True(nativeNames == null || k >= 0, native.FullName + "." + n + " has no counterpart in " + pub.Name);
                string p = k >= 0 ? publicNames[k] : n;
                Assert.True(Enum.IsDefined(pub, p), pub.Name + " lacks " + p + " (native " + native.FullName + "." + n + ")");
                ulong nv = Convert.ToUInt64(Enum.Parse(native, n));
                ulong pv = Convert.ToUInt64(Enum.Parse(pub, p));
                Assert.Equal(nv, pv, pub.Name + "." + p + " = native " + n);
            }
        }

        [Test]
        public void TimingsAreTheNativeTimings()
        {
            // OnityTiming is generated from the header (no Onity.Native.OnityTiming beside it); its
            // names are the library's (onity_timing_name, the Rust enum's NAMES).
            foreach (OnityTiming t in Enum.GetValues(typeof(OnityTiming)))
                Assert.Equal(t.ToString(), Marshal.PtrToStringAnsi(OnityNative.onity_timing_name((uint)t)), "timing " + (int)t);
            Assert.True(typeof(OnityTiming).Assembly.GetType("Onity.Native.OnityTiming") == null, "one public timing type");
            Assert.Equal((int)OnityNative.ONITY_TIMING_COUNT, Enum.GetValues(typeof(OnityTiming)).Length, "ONITY_TIMING_COUNT");
            // The fast lane's records and the runs table hold a timing in 4 bits.
            Assert.True(OnityNative.ONITY_TIMING_COUNT <= 16, "timings fit the fast lane's 4-bit field");
            Assert.Equal("invalid", Marshal.PtrToStringAnsi(OnityNative.onity_timing_name(OnityNative.ONITY_TIMING_COUNT)), "the library has no further timing");
        }

        [Test]
        public void DelayTypesAreTheNativeClocks()
        {
            SameMembers(typeof(DelayType), typeof(OnityClock),
                new[] { "Scaled", "Unscaled", "Realtime" },
                new[] { "DeltaTime", "UnscaledDeltaTime", "Realtime" });
        }

        [Test]
        public void TaskStatusesAreTheNativeTaskStates()
        {
            SameMembers(typeof(OnityTaskStatus), typeof(OnityTaskState), null, null);
        }

        [Test]
        public void WaitKindsAreTheOnesTheBindingSchedules()
        {
            // The binding writes these kinds into batch records and names them in GetPendingWaits: a
            // native kind added (or renumbered) must be handled here.
            var kinds = (OnityWaitKind[])Enum.GetValues(typeof(OnityWaitKind));
            Assert.Equal((int)OnityNative.ONITY_WAIT_KIND_COUNT, kinds.Length, "ONITY_WAIT_KIND_COUNT");
            var scheduled = new[] { OnityRuntime.KindYield, OnityRuntime.KindNextFrame, OnityRuntime.KindDelayFrame, OnityRuntime.KindDelay };
            Assert.Equal(kinds.Length, scheduled.Length, "wait kinds the binding schedules");
            foreach (var k in kinds)
            {
                Assert.True(Array.IndexOf(scheduled, (byte)k) >= 0, "the binding schedules no " + k);
                Assert.Equal(k.ToString(), OnityRuntime.KindName((byte)k), "pending-wait name of " + k);
            }
            Assert.Equal((byte)OnityNative.ONITY_BATCH_TASK, OnityRuntime.KindNative, "native-task record kind");
            Assert.True(!Enum.IsDefined(typeof(OnityWaitKind), OnityNative.ONITY_BATCH_TASK), "ONITY_BATCH_TASK is not a wait kind");
        }

        [Test]
        public void StatusesAreTheLibrarysStatuses()
        {
            // The library built from src/ffi describes every status the generated enum has, and
            // none past it.
            uint max = 0;
            foreach (OnityStatus s in Enum.GetValues(typeof(OnityStatus)))
            {
                string text = Marshal.PtrToStringAnsi(OnityNative.onity_status_text((uint)s));
                Assert.True(text != "unknown status", "library text of " + s);
                max = Math.Max(max, (uint)s);
            }
            Assert.Equal((int)max + 1, Enum.GetValues(typeof(OnityStatus)).Length, "statuses are 0..n-1");
            Assert.Equal("unknown status", Marshal.PtrToStringAnsi(OnityNative.onity_status_text(max + 1)), "the library has no further status");
        }

        [Test]
        public void PoolsAreTheLibrarysPools()
        {
            var pools = (OnityPool[])Enum.GetValues(typeof(OnityPool));
            Assert.Equal((int)OnityNative.ONITY_POOL_COUNT, pools.Length, "ONITY_POOL_COUNT");
            foreach (var p in pools)
                Assert.Equal(p.ToString(), Pascal(OnityRuntime.PoolName(p)), "library name of pool " + (uint)p);
            Assert.Equal("invalid", Marshal.PtrToStringAnsi(OnityNative.onity_pool_name(OnityNative.ONITY_POOL_COUNT)), "the library has no further pool");
        }

        [Test]
        public unsafe void FastLaneRecordsAreTheLibrarysLayout()
        {
            // The binding builds the fast lane's 8-byte records inline (OnityRuntime.FastLane.cs):
            // each must be what onity_batch_fast_record builds, and the largest DelayFrame the
            // binding accepts the largest the library does.
            using (var h = new TestHost())
            {
                h.RunFrame(OnityTiming.Update);
                OnityBatch* b = h.Runtime.batch;
                foreach (var t in new[] { OnityTiming.Initialization, OnityTiming.Update, OnityTiming.LastTimeUpdate })
                {
                    foreach (int delay in new[] { 0, 1, 5, OnityFrameWait.MaxDelayFrames })
                    {
                        uint n = b->fast_count;
                        OnityFrameWait w = delay == 0 ? OnityTask.Yield(t) : OnityTask.DelayFrame(delay, t);
                        w.GetAwaiter().UnsafeOnCompleted(() => { });
                        Assert.Equal(n + 1, b->fast_count, "one record per await");
                        ulong rec = b->fast_submit[n], expected;
                        Assert.Equal(OnityStatus.Ok, OnityNative.onity_batch_fast_record((uint)rec, (uint)t, (uint)delay, &expected), "library accepts " + t + ", " + delay);
                        Assert.Equal(expected, rec, "record of " + t + ", delay " + delay);
                    }
                }
                ulong r;
                Assert.Equal(OnityStatus.CountOutOfRange, OnityNative.onity_batch_fast_record(0, 0, (uint)OnityFrameWait.MaxDelayFrames + 1, &r), "MaxDelayFrames + 1");
                Assert.Equal(OnityStatus.InvalidArgument, OnityNative.onity_batch_fast_record(0, OnityNative.ONITY_TIMING_COUNT, 0, &r), "timing count");
            }
        }

        /// <summary>"when_any_16" -> "WhenAny16".</summary>
        static string Pascal(string snake)
        {
            var sb = new StringBuilder();
            foreach (var part in snake.Split('_'))
                if (part.Length != 0) sb.Append(char.ToUpperInvariant(part[0])).Append(part.Substring(1));
            return sb.ToString();
        }
    }
}
