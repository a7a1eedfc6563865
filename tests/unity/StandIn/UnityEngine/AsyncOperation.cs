// Test-only stand-in: yield instructions and the async operations the package awaits. Public
// members match Unity 2022.3's (UnityCsReference: Runtime/Export/Scripting/AsyncOperation*.cs,
// YieldOperation.cs, WaitForSeconds.cs, CustomYieldInstruction.cs, Resources; Modules/AssetBundle).
// The simulated engine (StandInAsync) drives isDone / progress / completed frame by frame from the
// native systems where Unity completes them (EarlyUpdate.UpdatePreloading for loads). Never shipped.
using System;
using System.Collections;
using System.Collections.Generic;

namespace UnityEngine
{
    public class YieldInstruction
    {
    }

    public sealed class WaitForSeconds : YieldInstruction
    {
        internal float m_Seconds;

        public WaitForSeconds(float seconds) { m_Seconds = seconds; }
    }

    public sealed class WaitForFixedUpdate : YieldInstruction
    {
    }

    public sealed class WaitForEndOfFrame : YieldInstruction
    {
    }

    public sealed class Coroutine : YieldInstruction
    {
        internal IntPtr m_Ptr;

        private Coroutine() { }

        internal static Coroutine StandInNew() { return new Coroutine(); }
    }

    public abstract class CustomYieldInstruction : IEnumerator
    {
        public abstract bool keepWaiting { get; }

        public object Current { get { return null; } }
        public bool MoveNext() { return keepWaiting; }
        public virtual void Reset() { }
    }

    public partial class AsyncOperation : YieldInstruction
    {
        internal IntPtr m_Ptr;
        Action<AsyncOperation> m_completeCallback;

        // Simulation state (not Unity API).
        internal bool m_IsDone;
        internal float m_Progress;
        internal int m_FramesLeft = -1;  // -1: completed only by StandInFinish
        internal int m_FramesTotal;
        internal StandInAsync.Stage m_Stage;
        internal int m_CompletedAddCount; // completed += calls (tests count subscriptions)

        public bool isDone { get { return m_IsDone; } }
        public float progress { get { return m_Progress; } }
        public int priority { get; set; }
        public bool allowSceneActivation { get; set; }

        internal void InvokeCompletionEvent()
        {
            if (m_completeCallback != null)
            {
                m_completeCallback(this);
                m_completeCallback = null;
            }
        }

        public event Action<AsyncOperation> completed
        {
            add
            {
                m_CompletedAddCount++;
                if (isDone)
                {
                    value(this);
                }
                else
                {
                    m_completeCallback += value;
                }
            }
            remove
            {
                m_completeCallback -= value;
            }
        }

        internal bool HasCompletionCallback { get { return m_completeCallback != null; } }

        /// <summary>Finishes now, as the engine does at the end of the work: isDone, progress 1,
        /// then the completed event.</summary>
        internal void StandInFinish()
        {
            if (m_IsDone) return;
            m_FramesLeft = 0;
            m_Progress = 1f;
            m_IsDone = true;
            OnStandInFinished();
            InvokeCompletionEvent();
        }

        internal virtual void OnStandInFinished() { }
    }

    public class ResourceRequest : AsyncOperation
    {
        internal string m_Path;
        internal Type m_Type;
        internal Object m_Asset; // simulation: what Resources.Load would return

        protected virtual Object GetResult() { return m_Asset; }

        public Object asset { get { return GetResult(); } }
    }

    // AsyncInstantiateOperation: Unity 2022.3.20+ (Runtime/GameCode/AsyncInstantiate), the
    // generic form a CustomYieldInstruction over it as in 2022.3. Simulation: started on the
    // Preloading stage (StandInAsync), the clones made when it finishes (new GameObjects named
    // "<original>(Clone)" for a GameObject, the original itself for other objects).
    public class AsyncInstantiateOperation : AsyncOperation
    {
        internal Object[] m_Result;
        internal Object m_Original; // simulation
        internal int m_Count;       // simulation
        internal bool m_Canceled;   // simulation
        static float s_IntegrationTimeMS = 2f;

        public Object[] Result { get { return m_Result; } }

        public bool IsWaitingForSceneActivation() { return !allowSceneActivation && m_Progress >= 0.9f && !m_IsDone; }
        public void WaitForCompletion() { StandInFinish(); }
        public void Cancel() { m_Canceled = true; }

        public static float GetIntegrationTimeMS() { return s_IntegrationTimeMS; }

        public static void SetIntegrationTimeMS(float integrationTimeMS)
        {
            if (integrationTimeMS <= 0f)
                throw new ArgumentOutOfRangeException("integrationTimeMS", "integrationTimeMS was out of range. Must be greater than zero.");
            s_IntegrationTimeMS = integrationTimeMS;
        }

        internal override void OnStandInFinished()
        {
            if (m_Canceled) return;
            var r = new Object[m_Count];
            for (int i = 0; i < r.Length; i++)
            {
                var go = m_Original as GameObject;
                r[i] = go != null ? new GameObject(go.name + "(Clone)") : m_Original;
            }
            m_Result = r;
        }
    }

    public class AsyncInstantiateOperation<T> : CustomYieldInstruction where T : Object
    {
        internal AsyncInstantiateOperation m_op;

        internal AsyncInstantiateOperation(AsyncInstantiateOperation op) { m_op = op; }

        public override bool keepWaiting { get { return !m_op.isDone; } }
        public bool isDone { get { return m_op.isDone; } }
        public float progress { get { return m_op.progress; } }

        public bool allowSceneActivation
        {
            get { return m_op.allowSceneActivation; }
            set { m_op.allowSceneActivation = value; }
        }

        public T[] Result
        {
            get
            {
                var from = m_op.Result;
                if (from == null) return null;
                var r = new T[from.Length]; // Unity reinterprets the array (UnsafeUtility.As)
                for (int i = 0; i < r.Length; i++) r[i] = (T)from[i];
                return r;
            }
        }

        public event Action<AsyncOperation> completed
        {
            add { m_op.completed += value; }
            remove { m_op.completed -= value; }
        }

        public AsyncInstantiateOperation GetOperation() { return m_op; }

        public static implicit operator AsyncInstantiateOperation(AsyncInstantiateOperation<T> generic) { return generic.m_op; }

        public bool IsWaitingForSceneActivation() { return m_op.IsWaitingForSceneActivation(); }
        public void WaitForCompletion() { m_op.WaitForCompletion(); }
        public void Cancel() { m_op.Cancel(); }
    }

    public partial class Object
    {
        // Object.InstantiateAsync (2022.3.20+), the overloads the tests use. Simulation: done
        // after 2 runs of the Preloading stage.
        public static AsyncInstantiateOperation<T> InstantiateAsync<T>(T original) where T : Object
        {
            return InstantiateAsync(original, 1);
        }

        public static AsyncInstantiateOperation<T> InstantiateAsync<T>(T original, int count) where T : Object
        {
            StandInThread.Check("InstantiateAsync");
            if (ReferenceEquals(original, null)) throw new ArgumentException("The Object you want to instantiate is null.");
            var op = new AsyncInstantiateOperation { m_Original = original, m_Count = count };
            StandInAsync.Start(op, 2);
            return new AsyncInstantiateOperation<T>(op);
        }
    }

    public partial class AssetBundle : Object
    {
        private AssetBundle() { }

        internal static AssetBundle StandInCreate() { return new AssetBundle(); }
    }

    public class AssetBundleRequest : ResourceRequest
    {
        protected override Object GetResult() { return m_Asset; }

        public new Object asset { get { return GetResult(); } }

        internal Object[] m_AllAssets; // simulation: what AssetBundle.LoadAssetWithSubAssets would return

        public Object[] allAssets { get { return m_AllAssets; } }
    }

    public class AssetBundleCreateRequest : AsyncOperation
    {
        internal AssetBundle m_Bundle;

        public AssetBundle assetBundle { get { return m_Bundle; } }
    }

    /// <summary>The simulated engine's async work (internal: not Unity API). An operation started
    /// here advances once per run of its stage's native system, its progress rising linearly, and
    /// finishes (isDone, progress 1, completed) at the run where its frames run out.</summary>
    internal static class StandInAsync
    {
        internal enum Stage { Preloading, WebRequest, GpuReadback }

        static readonly List<AsyncOperation> running = new List<AsyncOperation>();
        internal static readonly List<Rendering.StandInReadback> Readbacks = new List<Rendering.StandInReadback>();

        /// <summary>Starts <paramref name="op"/>: done after <paramref name="frames"/> runs of its
        /// stage's system (0: at the next one), or never by itself when frames is -1.</summary>
        internal static T Start<T>(T op, int frames, Stage stage = Stage.Preloading) where T : AsyncOperation
        {
            op.m_FramesLeft = frames;
            op.m_FramesTotal = Math.Max(1, frames + 1);
            op.m_Stage = stage;
            op.m_Progress = 0f;
            op.m_IsDone = false;
            running.Add(op);
            return op;
        }

        internal static int Running { get { return running.Count; } }

        internal static void Reset()
        {
            running.Clear();
            Readbacks.Clear();
        }

        /// <summary>One run of <paramref name="stage"/>'s native system.</summary>
        internal static void Run(Stage stage)
        {
            if (stage == Stage.GpuReadback) Rendering.StandInReadback.RunAll(Readbacks);
            var list = running.ToArray();
            foreach (var op in list)
            {
                if (op.m_Stage != stage) continue;
                if (op.m_IsDone)
                {
                    running.Remove(op);
                    continue;
                }
                if (op.m_FramesLeft < 0) continue;
                if (op.m_FramesLeft == 0)
                {
                    running.Remove(op);
                    op.StandInFinish();
                    continue;
                }
                op.m_FramesLeft--;
                op.m_Progress = Math.Min(0.9f, (float)(op.m_FramesTotal - 1 - op.m_FramesLeft) / op.m_FramesTotal);
            }
        }
    }
}
