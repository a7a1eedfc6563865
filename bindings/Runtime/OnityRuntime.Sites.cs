using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;

namespace Onity
{
    // Creation sites of managed waits (issue 20 #1): the public waits take [CallerFilePath] and
    // [CallerLineNumber] (string literals and constants the compiler passes: no allocation). While
    // SiteCapture is off (the default) a wait tests one flag. While it is on, the site is interned
    // (one dictionary probe, owner thread) and recorded beside the wait slot or fast-lane entry
    // that holds the wait: side arrays, so the slots and the fast lane keep their layout. A frame
    // wait (OnityFrameWait) carries its site id in the unused upper half of its `info` word until
    // it is awaited or converted. GetWaitReport groups by site.
    public sealed unsafe partial class OnityRuntime
    {
        struct SiteKey : IEquatable<SiteKey>
        {
            public string File;
            public int Line;
            public bool Equals(SiteKey o) { return Line == o.Line && string.Equals(File, o.File); }
            public override bool Equals(object o) { return o is SiteKey && Equals((SiteKey)o); }
            public override int GetHashCode() { return (File == null ? 0 : File.GetHashCode()) * 31 + Line; }
        }

        Dictionary<SiteKey, int> siteIds;
        List<SiteKey> sites;            // id - 1 -> site
        int[] slotSite;                 // per wait slot: site id, valid while slotSiteVersion matches
        uint[] slotSiteVersion;
        int[] fastSite;                 // per fast-lane entry: site id, valid while the entry holds
        Action[] fastSiteCont;          // this continuation with this record
        ulong[] fastSiteRecord;

        // In front of the dictionary (which hashes the whole path): a direct-mapped cache by line
        // of (file reference, line) -> id. Caller files are string literals, one interned object
        // per path, so a hit is a reference compare; a miss (another file on a line with the same
        // low bits, or an equal string that is another object) asks the dictionary and refills.
        const int SiteCacheMask = 1023;
        string[] siteCacheFile;
        int[] siteCacheLine;
        int[] siteCacheId;

        /// <summary>The id (1..) of a site; interned on first sight. Owner thread, capture on.</summary>
        int SiteId(string file, int line)
        {
            int c = line & SiteCacheMask;
            if (siteCacheFile != null && ReferenceEquals(siteCacheFile[c], file) && siteCacheLine[c] == line && file != null)
                return siteCacheId[c];
            return SiteIdSlow(file, line, c);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        int SiteIdSlow(string file, int line, int c)
        {
            if (siteIds == null)
            {
                siteIds = new Dictionary<SiteKey, int>();
                sites = new List<SiteKey>();
                siteCacheFile = new string[SiteCacheMask + 1];
                siteCacheLine = new int[SiteCacheMask + 1];
                siteCacheId = new int[SiteCacheMask + 1];
            }
            var k = new SiteKey { File = file, Line = line };
            int id;
            if (!siteIds.TryGetValue(k, out id))
            {
                sites.Add(k);
                id = sites.Count;
                siteIds.Add(k, id);
            }
            siteCacheFile[c] = file;
            siteCacheLine[c] = line;
            siteCacheId[c] = id;
            return id;
        }

        /// <summary>A frame wait made at a site (capture on): the site's id rides in the wait
        /// until it is awaited (fast lane) or converted (wait slot). The public waits test
        /// <c>siteCapture</c> themselves, so that with capture off they return
        /// <see cref="FrameWait"/>'s result directly.</summary>
        internal OnityFrameWait FrameWaitAt(int delay, OnityTiming timing, string file, int line)
        {
            var w = FrameWait(delay, timing);
            return ownedHere == this ? w.WithSite(SiteId(file, line)) : w;
        }

        /// <summary>Files a frame wait that carries a site (<paramref name="info"/>'s upper half):
        /// as <see cref="EnqueueFrameWait"/>, then the site beside the entry.</summary>
        internal void EnqueueFrameWaitAt(Action continuation, ulong mark, ulong info)
        {
            EnqueueFrameWait(continuation, mark, (uint)info);
            TagFastWait(continuation, (int)(info >> 32));
        }

        /// <summary>A wait task made at a site.</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        internal OnityTask At(OnityTask t, string file, int line)
        {
            if (siteCapture) TagTask(t, 0, file, line);
            return t;
        }

        /// <summary>Records site <paramref name="site"/> (or that of file:line when 0) for the
        /// wait slot behind <paramref name="t"/>, if it is one of this runtime's.</summary>
        internal void TagTask(OnityTask t, int site, string file, int line)
        {
            if (ownedHere != this || t.source != this) return;
            uint idx = (uint)t.token, ver = (uint)((ulong)t.token >> 32);
            if (idx >= (uint)slots.Length || slots[idx].version != ver || slots[idx].kind == KindFree) return;
            if (site == 0) site = SiteId(file, line);
            if (slotSite == null || slotSite.Length < slots.Length)
            {
                Array.Resize(ref slotSite, slots.Length);
                Array.Resize(ref slotSiteVersion, slots.Length);
            }
            slotSite[idx] = site;
            slotSiteVersion[idx] = ver;
        }

        /// <summary>Records site <paramref name="site"/> for the fast-lane entry just filed for
        /// <paramref name="continuation"/> (nothing when the await was posted from another thread).</summary>
        internal void TagFastWait(Action continuation, int site)
        {
            if (ownedHere != this || fastFreeCount >= fast.Length) return;
            int id = fastFree[fastFreeCount]; // the entry EnqueueFrameWait just took
            if (!ReferenceEquals(fast[id].cont, continuation)) return; // (not `!=`: the delegate operator compares targets and methods)
            if (fastSite == null || fastSite.Length < fast.Length)
            {
                Array.Resize(ref fastSite, fast.Length);
                Array.Resize(ref fastSiteCont, fast.Length);
                Array.Resize(ref fastSiteRecord, fast.Length);
            }
            fastSite[id] = site;
            fastSiteCont[id] = continuation;
            fastSiteRecord[id] = fast[id].record;
        }

        /// <summary>The site (file, line) of wait slot <paramref name="idx"/>, or false.</summary>
        bool SlotSite(int idx, out string file, out int line)
        {
            if (slotSite != null && idx < slotSite.Length && slotSite[idx] != 0 && slotSiteVersion[idx] == slots[idx].version)
                return Describe(slotSite[idx], out file, out line);
            file = null;
            line = 0;
            return false;
        }

        /// <summary>The site of fast-lane entry <paramref name="id"/>, or false.</summary>
        bool FastSite(int id, out string file, out int line)
        {
            if (fastSite != null && id < fastSite.Length && fastSite[id] != 0 && ReferenceEquals(fastSiteCont[id], fast[id].cont) &&
                fastSiteRecord[id] == fast[id].record)
                return Describe(fastSite[id], out file, out line);
            file = null;
            line = 0;
            return false;
        }

        bool Describe(int site, out string file, out int line)
        {
            var k = sites[site - 1];
            file = k.File;
            line = k.Line;
            return true;
        }
    }
}
