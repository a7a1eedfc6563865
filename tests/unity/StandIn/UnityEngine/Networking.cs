// Test-only stand-in: the UnityWebRequest subset the package uses (UnityCsReference 2022.3:
// Modules/UnityWebRequest/Public/UnityWebRequest.bindings.cs, DownloadHandler.bindings.cs). A
// request's outcome is scripted by the test (StandInScript) and delivered by the simulated
// EarlyUpdate.UnityWebRequestUpdate system. Never shipped.
using System;

namespace UnityEngine.Networking
{
    public class UnityWebRequestAsyncOperation : AsyncOperation
    {
        public UnityWebRequest webRequest { get; internal set; }

        internal override void OnStandInFinished()
        {
            var r = webRequest;
            if (r != null && r.m_Result == UnityWebRequest.Result.InProgress) r.m_Result = r.m_ScriptResult;
        }
    }

    public partial class UnityWebRequest : IDisposable
    {
        public enum Result
        {
            InProgress = 0,
            Success = 1,
            ConnectionError = 2,
            ProtocolError = 3,
            DataProcessingError = 4,
        }

        DownloadHandler m_DownloadHandler;
        string m_Url;
        bool m_Sent, m_Disposed;
        internal Result m_Result = Result.InProgress;
        internal UnityWebRequestAsyncOperation m_Operation;
        // Scripted outcome (simulation).
        internal int m_ScriptFrames;
        internal Result m_ScriptResult = Result.Success;
        internal long m_ScriptResponseCode = 200;
        internal string m_ScriptError;
        internal int m_AbortCount;

        public UnityWebRequest(string url)
        {
            m_Url = url;
        }

        public DownloadHandler downloadHandler
        {
            get { return m_DownloadHandler; }
            set
            {
                ThrowIfDisposed();
                if (m_Sent) throw new InvalidOperationException("UnityWebRequest has already been sent; cannot modify the download handler");
                m_DownloadHandler = value;
            }
        }

        // Unity's Dispose releases the native request and zeroes m_Ptr: every member bound to it
        // then throws what the bindings throw for a null self in 2022.3 (ArgumentNullException,
        // parameter "_unity_self"; Unity 6 throws NullReferenceException instead).
        void ThrowIfDisposed()
        {
            if (m_Disposed) throw new ArgumentNullException("_unity_self");
        }

        public Result result { get { ThrowIfDisposed(); return m_Result; } }
        public bool isDone { get { return result != Result.InProgress; } }

        /// <summary>The response's headers; null before a response (in progress, connection
        /// error). The simulation answers Content-Length only.</summary>
        public System.Collections.Generic.Dictionary<string, string> GetResponseHeaders()
        {
            ThrowIfDisposed();
            if (m_Result == Result.InProgress || m_Result == Result.ConnectionError) return null;
            var buffer = m_DownloadHandler as DownloadHandlerBuffer;
            var headers = new System.Collections.Generic.Dictionary<string, string>();
            headers["Content-Length"] = (buffer != null && buffer.m_Text != null ? buffer.m_Text.Length : 0).ToString();
            return headers;
        }

        public long responseCode { get { ThrowIfDisposed(); return m_Result == Result.InProgress || m_Result == Result.ConnectionError ? 0 : m_ScriptResponseCode; } }

        public string error
        {
            get
            {
                ThrowIfDisposed();
                switch (m_Result)
                {
                    case Result.InProgress:
                    case Result.Success:
                        return null;
                    case Result.ProtocolError:
                        return string.Format("HTTP/1.1 {0} {1}", responseCode, responseCode == 404 ? "Not Found" : "Error");
                    default:
                        return m_ScriptError ?? "Unknown Error";
                }
            }
        }

        public UnityWebRequestAsyncOperation SendWebRequest()
        {
            ThrowIfDisposed();
            if (m_Sent) throw new InvalidOperationException("UnityWebRequest has already been sent; cannot begin sending the request again");
            m_Sent = true;
            var op = new UnityWebRequestAsyncOperation();
            op.webRequest = this;
            m_Operation = op;
            StandInAsync.Start(op, m_ScriptFrames, StandInAsync.Stage.WebRequest);
            return op;
        }

        /// <summary>Unity: an in-flight request ends at once with a connection error ("Request
        /// aborted"); its operation completes at the next UnityWebRequestUpdate.</summary>
        public void Abort()
        {
            ThrowIfDisposed();
            AbortInFlight();
        }

        void AbortInFlight()
        {
            m_AbortCount++;
            if (m_Result != Result.InProgress || !m_Sent) return;
            m_Result = Result.ConnectionError;
            m_ScriptError = "Request aborted";
            m_ScriptResponseCode = 0;
            if (m_Operation != null) m_Operation.m_FramesLeft = 0;
        }

        public void Dispose()
        {
            if (m_Disposed) return;
            if (m_DownloadHandler != null) m_DownloadHandler.Dispose();
            AbortInFlight(); // the native Release ends an in-flight request
            m_Disposed = true;
        }

        /// <summary>Simulation: the request ends after <paramref name="frames"/> runs of
        /// UnityWebRequestUpdate (0: the first) with <paramref name="result"/>.</summary>
        internal UnityWebRequest StandInScript(int frames, Result result = Result.Success, long responseCode = 200, string error = null, string text = null)
        {
            m_ScriptFrames = frames;
            m_ScriptResult = result;
            m_ScriptResponseCode = responseCode;
            m_ScriptError = error;
            if (text != null)
            {
                var buffer = new DownloadHandlerBuffer();
                buffer.m_Text = text;
                m_DownloadHandler = buffer;
            }
            return this;
        }
    }

    public class DownloadHandler : IDisposable
    {
        internal string m_Text;
        internal bool m_Disposed;

        public string text { get { return GetText(); } }

        // Disposed: the native handler is gone (ArgumentNullException "_unity_self", as above).
        protected virtual string GetText() { if (m_Disposed) throw new ArgumentNullException("_unity_self"); return m_Text; }

        public void Dispose() { m_Disposed = true; }
    }

    public sealed class DownloadHandlerBuffer : DownloadHandler
    {
        public DownloadHandlerBuffer() { }
    }
}
