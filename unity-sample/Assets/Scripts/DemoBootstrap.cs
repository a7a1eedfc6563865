using UnityEngine;

namespace Onity.Samples.Demo
{
    /// <summary>The scene (Assets/Scenes/OnityDemo.unity) holds the demo object; if the demo is
    /// played from another scene, this adds it.</summary>
    public static class DemoBootstrap
    {
        [RuntimeInitializeOnLoadMethod(RuntimeInitializeLoadType.AfterSceneLoad)]
        static void EnsureDemo()
        {
            if (DemoDirector.Instance != null) return;
            Create();
        }

        public static GameObject Create()
        {
            var go = new GameObject("Onity Demo");
            go.AddComponent<DemoDirector>();
            go.AddComponent<WorkerThreadDemo>();
            go.AddComponent<OnityOverlay>();
            return go;
        }
    }
}
