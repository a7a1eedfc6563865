using UnityEngine;

namespace Onity.Samples.Demo
{
    /// <summary>Replaces the wave every <c>waveLifetimeFrames</c>: the old wave's GameObject is
    /// destroyed (its pending tasks are canceled through destroyCancellationToken) and a new one
    /// starts.</summary>
    public sealed class DemoDirector : MonoBehaviour
    {
        [SerializeField] int waveLifetimeFrames = 90;
        [SerializeField] int tasksPerFrame = 32;
        WaveSpawner wave;
        int waveStartFrame;

        public static DemoDirector Instance { get; private set; }

        public int WaveLifetimeFrames { get { return waveLifetimeFrames; } set { waveLifetimeFrames = value; } }

        void Awake() { Instance = this; }

        void OnDestroy()
        {
            if (Instance == this) Instance = null;
        }

        void Update()
        {
            if (wave != null && Time.frameCount - waveStartFrame < waveLifetimeFrames) return;
            if (wave != null) Destroy(wave.gameObject);
            wave = new GameObject("Wave " + (++DemoStats.Waves)).AddComponent<WaveSpawner>();
            wave.TasksPerFrame = tasksPerFrame;
            waveStartFrame = Time.frameCount;
        }
    }
}
