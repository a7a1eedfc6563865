// Test-only stand-in: AsyncGPUReadbackRequest (UnityCsReference 2022.3,
// Runtime/Graphics/AsyncGPUReadback.bindings.cs), the members the package reads. A request is
// completed by the simulated EarlyUpdate.UpdateAsyncReadbackManager; as in Unity its data lives
// for one frame, after which the request reads as disposed (hasError). Never shipped.
using System.Collections.Generic;

namespace UnityEngine.Rendering
{
    public struct AsyncGPUReadbackRequest
    {
        internal StandInReadback m_State;

        public bool done { get { return m_State == null || m_State.m_Done; } }
        public bool hasError { get { return m_State == null || m_State.m_HasError; } }

        /// <summary>Simulation: a request done after <paramref name="frames"/> runs of
        /// UpdateAsyncReadbackManager (0: the first), failing when <paramref name="fail"/>.</summary>
        internal static AsyncGPUReadbackRequest StandInStart(int frames, bool fail = false)
        {
            var s = new StandInReadback { m_FramesLeft = frames, m_Fail = fail };
            StandInAsync.Readbacks.Add(s);
            return new AsyncGPUReadbackRequest { m_State = s };
        }
    }

    internal sealed class StandInReadback
    {
        internal int m_FramesLeft;
        internal bool m_Fail, m_Done, m_HasError, m_Disposed;

        internal static void RunAll(List<StandInReadback> list)
        {
            foreach (var r in list.ToArray())
            {
                if (r.m_Done)
                {
                    // The frame after completion: the request is disposed.
                    r.m_Disposed = true;
                    r.m_HasError = true;
                    list.Remove(r);
                    continue;
                }
                if (r.m_FramesLeft-- > 0) continue;
                r.m_Done = true;
                r.m_HasError = r.m_Fail;
            }
        }
    }
}

namespace UnityEngine
{
    // UnityCsReference 2022.3 Runtime/Export/Graphics/Texture.bindings.cs: Texture : Object,
    // RenderTexture : Texture (the type OnRenderImage's parameters name).
    public partial class Texture : Object
    {
    }

    public partial class RenderTexture : Texture
    {
    }
}
