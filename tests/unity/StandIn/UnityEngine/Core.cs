// Test-only stand-in of the UnityEngine API surface the Onity package and sample use.
// Public members match Unity 2022.3's signatures (UnityCsReference); everything a test needs to
// drive it (advancing time, the object registry, captured logs) is internal and reached through
// InternalsVisibleTo. Never shipped.
using System;
using System.Collections;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Threading;

[assembly: InternalsVisibleTo("OnityUnityTests")]
[assembly: InternalsVisibleTo("UnityEditor")]
// The C# benchmark drives UniTask's player loop through this stand-in (Time.s_frameCount).
[assembly: InternalsVisibleTo("OnityBench")]

namespace UnityEngine.Scripting
{
    [AttributeUsage(AttributeTargets.Assembly | AttributeTargets.Class | AttributeTargets.Struct | AttributeTargets.Enum | AttributeTargets.Constructor | AttributeTargets.Method | AttributeTargets.Property | AttributeTargets.Field | AttributeTargets.Event | AttributeTargets.Interface | AttributeTargets.Delegate, Inherited = false)]
    public class PreserveAttribute : Attribute
    {
    }
}

namespace UnityEngine
{
    public enum RuntimeInitializeLoadType
    {
        AfterSceneLoad = 0,
        BeforeSceneLoad,
        AfterAssembliesLoaded,
        BeforeSplashScreen,
        SubsystemRegistration
    }

    [AttributeUsage(AttributeTargets.Method, AllowMultiple = false)]
    public class RuntimeInitializeOnLoadMethodAttribute : Scripting.PreserveAttribute
    {
        public RuntimeInitializeOnLoadMethodAttribute() { this.loadType = RuntimeInitializeLoadType.AfterSceneLoad; }
        public RuntimeInitializeOnLoadMethodAttribute(RuntimeInitializeLoadType loadType) { this.loadType = loadType; }

        public RuntimeInitializeLoadType loadType
        {
            get { return m_LoadType; }
            private set { m_LoadType = value; }
        }

        RuntimeInitializeLoadType m_LoadType;
    }

    [AttributeUsage(AttributeTargets.Field, Inherited = true, AllowMultiple = false)]
    public sealed class SerializeField : Attribute
    {
    }

    public class Time
    {
        internal static float s_time, s_deltaTime = 0.02f, s_unscaledTime, s_unscaledDeltaTime = 0.02f, s_fixedDeltaTime = 0.02f, s_timeScale = 1f, s_fixedTime;
        internal static double s_timeAsDouble, s_unscaledTimeAsDouble, s_realtime;
        internal static int s_frameCount;
        internal static bool s_inFixedTimeStep;

        // Main-thread only, as in Unity (UnityException off the main thread; see StandInThread).
        public static float time { get { StandInThread.Check("get_time"); return s_inFixedTimeStep ? s_fixedTime : s_time; } }
        public static double timeAsDouble { get { StandInThread.Check("get_timeAsDouble"); return s_inFixedTimeStep ? s_fixedTime : s_timeAsDouble; } }
        public static float deltaTime { get { StandInThread.Check("get_deltaTime"); return s_inFixedTimeStep ? s_fixedDeltaTime : s_deltaTime; } }
        public static float unscaledTime { get { StandInThread.Check("get_unscaledTime"); return s_unscaledTime; } }
        public static double unscaledTimeAsDouble { get { StandInThread.Check("get_unscaledTimeAsDouble"); return s_unscaledTimeAsDouble; } }
        public static float unscaledDeltaTime { get { StandInThread.Check("get_unscaledDeltaTime"); return s_unscaledDeltaTime; } }
        public static float fixedDeltaTime { get { StandInThread.Check("get_fixedDeltaTime"); return s_fixedDeltaTime; } set { StandInThread.Check("set_fixedDeltaTime"); s_fixedDeltaTime = value; } }
        public static float fixedTime { get { StandInThread.Check("get_fixedTime"); return s_fixedTime; } }
        public static float timeScale { get { StandInThread.Check("get_timeScale"); return s_timeScale; } set { StandInThread.Check("set_timeScale"); s_timeScale = value; } }
        public static int frameCount { get { StandInThread.Check("get_frameCount"); return s_frameCount; } }
        public static float realtimeSinceStartup { get { StandInThread.Check("get_realtimeSinceStartup"); return (float)s_realtime; } }
        public static double realtimeSinceStartupAsDouble { get { StandInThread.Check("get_realtimeSinceStartupAsDouble"); return s_realtime; } }
        public static bool inFixedTimeStep { get { StandInThread.Check("get_inFixedTimeStep"); return s_inFixedTimeStep; } }

        internal static void Reset()
        {
            s_time = s_unscaledTime = s_fixedTime = 0;
            s_timeAsDouble = s_unscaledTimeAsDouble = 0;
            s_deltaTime = s_unscaledDeltaTime = 0.02f;
            s_fixedDeltaTime = 0.02f;
            s_timeScale = 1f;
            s_frameCount = 0;
            s_inFixedTimeStep = false;
        }
    }

    public class Application
    {
        internal static bool s_isPlaying;

        public static event Action quitting;

        public static bool isPlaying { get { return s_isPlaying; } }

        internal static void InvokeQuitting()
        {
            var q = quitting;
            if (q != null) q();
        }

        internal static int QuittingHandlerCount
        {
            get { var q = quitting; return q == null ? 0 : q.GetInvocationList().Length; }
        }
    }

    public class Debug
    {
        internal static readonly List<string> Logs = new List<string>();
        internal static readonly List<string> Warnings = new List<string>();
        internal static readonly List<string> Errors = new List<string>();
        internal static readonly List<Exception> Exceptions = new List<Exception>();
        internal static bool Echo;

        public static void Log(object message) { lock (Logs) Logs.Add(Str(message)); if (Echo) Console.WriteLine("[Log] " + message); }
        public static void LogWarning(object message) { lock (Warnings) Warnings.Add(Str(message)); if (Echo) Console.WriteLine("[Warning] " + message); }
        public static void LogError(object message) { lock (Errors) Errors.Add(Str(message)); Console.WriteLine("[Error] " + message); }
        public static void LogException(Exception exception) { lock (Exceptions) Exceptions.Add(exception); Console.WriteLine("[Exception] " + exception); }
        public static void LogFormat(string format, params object[] args) { Log(string.Format(format, args)); }

        static string Str(object o) { return o == null ? "Null" : o.ToString(); }

        internal static void Clear()
        {
            lock (Logs) Logs.Clear();
            lock (Warnings) Warnings.Clear();
            lock (Errors) Errors.Clear();
            lock (Exceptions) Exceptions.Clear();
        }
    }

    public partial class Object
    {
        internal bool m_Destroyed;
        string m_Name = "";

        public string name { get { StandInThread.Check("GetName"); return m_Name; } set { StandInThread.Check("SetName"); m_Name = value; } }

        public static void Destroy(Object obj) { StandInThread.Check("Destroy"); StandInScene.MarkForDestroy(obj); }
        public static void DontDestroyOnLoad(Object target) { }

        public static implicit operator bool(Object exists) { return !ReferenceEquals(exists, null) && !exists.m_Destroyed; }

        public static bool operator ==(Object x, Object y)
        {
            bool xNull = ReferenceEquals(x, null) || x.m_Destroyed;
            bool yNull = ReferenceEquals(y, null) || y.m_Destroyed;
            if (xNull && yNull) return true;
            if (xNull || yNull) return false;
            return ReferenceEquals(x, y);
        }

        public static bool operator !=(Object x, Object y) { return !(x == y); }

        public override bool Equals(object other) { var o = other as Object; return o == this; }
        public override int GetHashCode() { return base.GetHashCode(); }
        public override string ToString() { return m_Name; }
    }

    public sealed partial class GameObject : Object
    {
        internal readonly List<Component> m_Components = new List<Component>();

        public GameObject(string name)
        {
            StandInThread.Check("Internal_CreateGameObject");
            this.name = name;
            StandInScene.Register(this);
        }

        public T AddComponent<T>() where T : Component
        {
            StandInThread.Check("Internal_AddComponentWithType");
            var c = (T)Activator.CreateInstance(typeof(T), true);
            c.m_GameObject = this;
            c.name = name;
            m_Components.Add(c);
            StandInScene.ComponentAdded(c);
            return c;
        }

        public T GetComponent<T>()
        {
            StandInThread.Check("GetComponentFastPath");
            foreach (var c in m_Components) if (c is T && !c.m_Destroyed) return (T)(object)c;
            return default(T);
        }

        internal bool m_Active = true;

        public bool activeSelf { get { StandInThread.Check("get_activeSelf"); return m_Active; } }

        /// <summary>Unity: activating sends Awake (to components that never had it) and OnEnable,
        /// deactivating sends OnDisable, at once. (The stand-in has no hierarchy: activeSelf is
        /// also the object's activeInHierarchy.)</summary>
        public void SetActive(bool value)
        {
            StandInThread.Check("SetActive");
            if (m_Active == value) return;
            m_Active = value;
            StandInScene.ActiveChanged(this);
        }
    }

    public partial class Component : Object
    {
        internal GameObject m_GameObject;

        public GameObject gameObject { get { StandInThread.Check("get_gameObject"); return m_GameObject; } }

        public T GetComponent<T>() { return m_GameObject.GetComponent<T>(); }
    }

    public partial class Behaviour : Component
    {
        bool m_Enabled = true;

        public bool enabled
        {
            get { StandInThread.Check("get_enabled"); return m_Enabled; }
            set
            {
                StandInThread.Check("set_enabled");
                if (m_Enabled == value) return;
                m_Enabled = value;
                StandInScene.EnabledChanged(this); // Unity sends OnEnable / OnDisable at once
            }
        }
        public bool isActiveAndEnabled { get { StandInThread.Check("get_isActiveAndEnabled"); return m_Enabled && !m_Destroyed && (m_GameObject == null || m_GameObject.m_Active); } }
    }

    public class MonoBehaviour : Behaviour
    {
        CancellationTokenSource m_CancellationTokenSource;
        internal bool m_Started;
        // Added in Play Mode to an inactive GameObject and not activated since: no Awake yet, and
        // Unity sends such a component neither OnDisable nor OnDestroy when it is destroyed.
        internal bool m_AwaitingAwake;

        public CancellationToken destroyCancellationToken
        {
            get
            {
                // Unity 2022.3.40f1 and later throw this (UnityEngine.MissingReferenceException,
                // message verbatim) when the token is first asked for after the object was
                // destroyed; 2022.3.0f1-39f1 return the token of a new source that nothing cancels
                // any more (StandInVersion.Patch chooses).
                if (this == null && StandInVersion.Patch >= 40)
                    throw new MissingReferenceException("DestroyCancellation token should be called atleast once before destroying the monobehaviour object");
                if (m_CancellationTokenSource == null) m_CancellationTokenSource = new CancellationTokenSource();
                return m_CancellationTokenSource.Token;
            }
        }

        internal void CancelDestroyToken()
        {
            if (m_CancellationTokenSource != null) m_CancellationTokenSource.Cancel();
        }

        // Coroutines (UnityCsReference Runtime/Export/Scripting/MonoBehaviour.bindings.cs); the
        // simulation is StandInCoroutines.
        public Coroutine StartCoroutine(IEnumerator routine)
        {
            StandInThread.Check("StartCoroutine");
            if (routine == null) throw new NullReferenceException("routine is null");
            return StandInCoroutines.Start(this, routine);
        }

        public void StopCoroutine(IEnumerator routine) { StandInThread.Check("StopCoroutine"); StandInCoroutines.Stop(this, routine, null); }

        public void StopCoroutine(Coroutine routine) { StandInThread.Check("StopCoroutine"); StandInCoroutines.Stop(this, null, routine); }

        public void StopAllCoroutines() { StandInThread.Check("StopAllCoroutines"); StandInCoroutines.Stop(this, null, null); }
    }

    public class UnityException : SystemException
    {
        public UnityException() { }
        public UnityException(string message) : base(message) { }
        public UnityException(string message, Exception innerException) : base(message, innerException) { }
        protected UnityException(System.Runtime.Serialization.SerializationInfo info, System.Runtime.Serialization.StreamingContext context) : base(info, context) { }
    }

    /// <summary>Unity's main-thread check (internal: not Unity API). Most engine API (Time, the
    /// GameObject/Component/Object members) throws <see cref="UnityException"/> with this message
    /// when called from any other thread. The main thread is the one the simulator resets the
    /// engine on (or the first thread that calls engine API).</summary>
    internal static class StandInThread
    {
        internal static int MainThreadId;

        internal static bool IsMainThread
        {
            get
            {
                int id = Thread.CurrentThread.ManagedThreadId;
                if (MainThreadId == 0) Interlocked.CompareExchange(ref MainThreadId, id, 0);
                return Volatile.Read(ref MainThreadId) == id;
            }
        }

        internal static void Check(string member)
        {
            if (!IsMainThread)
                throw new UnityException(member + " can only be called from the main thread.\n"
                    + "Constructors and field initializers will be executed from the loading thread when loading a scene.\n"
                    + "Don't use this function in the constructor or field initializers, instead move initialization code to the Awake or Start function.");
        }
    }

    /// <summary>The 2022.3 patch release the stand-in behaves as (internal: not Unity API), for
    /// behaviour that changed within 2022.3: 40 and later (2022.3.40f1+) throw from
    /// destroyCancellationToken of a destroyed MonoBehaviour, earlier ones do not.</summary>
    internal static class StandInVersion
    {
        internal const int Latest = 62;
        internal static int Patch = Latest;
    }

    public class MissingReferenceException : SystemException
    {
        public MissingReferenceException() { }
        public MissingReferenceException(string message) : base(message) { }
        public MissingReferenceException(string message, Exception innerException) : base(message, innerException) { }
        protected MissingReferenceException(System.Runtime.Serialization.SerializationInfo info, System.Runtime.Serialization.StreamingContext context) : base(info, context) { }
    }

    public class ScriptableObject : Object
    {
        public static T CreateInstance<T>() where T : ScriptableObject
        {
            return (T)Activator.CreateInstance(typeof(T), true);
        }
    }

    public struct Vector2
    {
        public float x;
        public float y;

        public Vector2(float x, float y) { this.x = x; this.y = y; }
    }

    public struct Rect
    {
        float m_XMin, m_YMin, m_Width, m_Height;

        public Rect(float x, float y, float width, float height)
        {
            m_XMin = x; m_YMin = y; m_Width = width; m_Height = height;
        }

        public float x { get { return m_XMin; } set { m_XMin = value; } }
        public float y { get { return m_YMin; } set { m_YMin = value; } }
        public float width { get { return m_Width; } set { m_Width = value; } }
        public float height { get { return m_Height; } set { m_Height = value; } }
    }

    /// <summary>Scene bookkeeping for the simulated engine (internal: not Unity API).</summary>
    internal static class StandInScene
    {
        internal static readonly List<GameObject> Objects = new List<GameObject>();
        internal static readonly List<MonoBehaviour> Behaviours = new List<MonoBehaviour>();
        internal static readonly List<Object> PendingDestroy = new List<Object>();
        internal static Action<Component> OnComponentAdded; // the simulator sends Awake/OnEnable
        internal static Action<Behaviour> OnEnabledChanged;  // the simulator sends OnEnable/OnDisable
        internal static Action<GameObject> OnActiveChanged;  // the simulator sends Awake/OnEnable/OnDisable

        internal static void ActiveChanged(GameObject go)
        {
            if (OnActiveChanged != null) OnActiveChanged(go);
        }

        internal static void EnabledChanged(Behaviour b)
        {
            if (OnEnabledChanged != null) OnEnabledChanged(b);
        }

        internal static void Register(GameObject go) { Objects.Add(go); }

        internal static void ComponentAdded(Component c)
        {
            var mb = c as MonoBehaviour;
            if (mb != null) Behaviours.Add(mb);
            if (OnComponentAdded != null) OnComponentAdded(c);
        }

        internal static void MarkForDestroy(Object o)
        {
            if (ReferenceEquals(o, null)) return;
            if (!PendingDestroy.Contains(o)) PendingDestroy.Add(o);
        }
    }
}

namespace UnityEngine
{
    public partial struct Mathf
    {
        public static float Clamp01(float value) { return value < 0f ? 0f : value > 1f ? 1f : value; }
        public static float Lerp(float a, float b, float t) { return a + (b - a) * Clamp01(t); }
    }
}
