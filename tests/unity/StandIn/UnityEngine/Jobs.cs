// Test-only stand-in: Unity.Jobs.JobHandle (UnityCsReference 2022.3,
// Runtime/Jobs/ScriptBindings/JobHandle.bindings.cs), the public members a script calls on a handle.
// A handle points at a simulated job (StandInJob, not Unity API): the test finishes it on a
// "worker" (StandInFinish) or Complete() runs it on the caller, as Unity's does. Never shipped.
using System;

namespace Unity.Jobs
{
    public struct JobHandle : IEquatable<JobHandle>
    {
        internal StandInJob m_Job;

        /// <summary>Waits for the job (here: runs it now) and all its dependencies.</summary>
        public void Complete()
        {
            if (m_Job == null) return;
            m_Job.m_CompleteCalls++;
            m_Job.m_Done = true;
        }

        public bool IsCompleted { get { return m_Job == null || m_Job.m_Done; } }

        public static void ScheduleBatchedJobs() { }

        public static JobHandle CombineDependencies(JobHandle job0, JobHandle job1)
        {
            throw new NotSupportedException("stand-in: not simulated");
        }

        public bool Equals(JobHandle other) { return ReferenceEquals(m_Job, other.m_Job); }

        public override bool Equals(object obj) { return obj is JobHandle && Equals((JobHandle)obj); }

        public override int GetHashCode() { return m_Job == null ? 0 : m_Job.GetHashCode(); }
    }

    /// <summary>Simulation state of a scheduled job (not Unity API).</summary>
    internal sealed class StandInJob
    {
        internal bool m_Done;
        internal int m_CompleteCalls;

        internal static JobHandle Schedule(out StandInJob job)
        {
            job = new StandInJob();
            return new JobHandle { m_Job = job };
        }

        /// <summary>The job finishes on a worker thread.</summary>
        internal void StandInFinish() { m_Done = true; }
    }
}
