// The failure of an awaited UnityWebRequest (UniTask's UnityWebRequestException). The
// UnityWebRequest module (com.unity.modules.unitywebrequest) can be disabled in a project: the
// asmdef's versionDefines sets ONITY_WEBREQUEST_SUPPORT when it is present.
#if (UNITY_5_3_OR_NEWER || ONITY_UNITY_STANDIN) && ONITY_WEBREQUEST_SUPPORT
using System;
using UnityEngine.Networking;

namespace Onity
{
    /// <summary>Thrown by an awaited <see cref="UnityWebRequestAsyncOperation"/> whose request ended
    /// with <see cref="UnityWebRequest.Result.ConnectionError"/>,
    /// <see cref="UnityWebRequest.Result.ProtocolError"/> or
    /// <see cref="UnityWebRequest.Result.DataProcessingError"/>: catch it to read the request's
    /// outcome. An aborted request (cancellation) throws <see cref="OperationCanceledException"/>
    /// instead.</summary>
    public class OnityWebRequestException : Exception
    {
        /// <summary>The request (not disposed by Onity: dispose it yourself, e.g. with <c>using</c>).</summary>
        public UnityWebRequest UnityWebRequest { get; private set; }
        public UnityWebRequest.Result Result { get; private set; }
        /// <summary><c>UnityWebRequest.error</c> at the failure.</summary>
        public string Error { get; private set; }
        /// <summary>The body when the request used a <see cref="DownloadHandlerBuffer"/> (an error
        /// page, a JSON error), else null.</summary>
        public string Text { get; private set; }
        public long ResponseCode { get; private set; }
        /// <summary>The response's headers (<c>GetResponseHeaders()</c>); null without a response.</summary>
        public System.Collections.Generic.Dictionary<string, string> ResponseHeaders { get; private set; }
        /// <summary>The request failed to reach the server (<c>Result.ConnectionError</c>; UniTask's name).</summary>
        public bool IsNetworkError { get { return Result == UnityWebRequest.Result.ConnectionError; } }
        /// <summary>The server answered with an error status (<c>Result.ProtocolError</c>; UniTask's name).</summary>
        public bool IsHttpError { get { return Result == UnityWebRequest.Result.ProtocolError; } }

        public OnityWebRequestException(UnityWebRequest unityWebRequest)
            : base(Describe(unityWebRequest))
        {
            UnityWebRequest = unityWebRequest;
            Result = unityWebRequest.result;
            Error = unityWebRequest.error;
            ResponseCode = unityWebRequest.responseCode;
            ResponseHeaders = unityWebRequest.GetResponseHeaders();
            Text = BodyOf(unityWebRequest);
        }

        static string BodyOf(UnityWebRequest request)
        {
            var buffer = request.downloadHandler as DownloadHandlerBuffer;
            return buffer != null ? buffer.text : null;
        }

        static string Describe(UnityWebRequest request)
        {
            if (request == null) throw new ArgumentNullException("unityWebRequest");
            var text = BodyOf(request);
            return request.error + (string.IsNullOrEmpty(text) ? "" : Environment.NewLine + text);
        }

        /// <summary>True when the request failed. A request the user disposed before its operation
        /// completed has no native request left (Unity's members then throw
        /// <c>ArgumentNullException</c> "_unity_self", <c>NullReferenceException</c> in Unity 6):
        /// that is reported as an <see cref="ObjectDisposedException"/> saying so.</summary>
        internal static bool IsError(UnityWebRequest request)
        {
            UnityWebRequest.Result r;
            try { r = request.result; }
            catch (ArgumentNullException e) { throw Disposed(e); }
            catch (NullReferenceException e) { throw Disposed(e); }
            return r == UnityWebRequest.Result.ConnectionError || r == UnityWebRequest.Result.ProtocolError || r == UnityWebRequest.Result.DataProcessingError;
        }

        static ObjectDisposedException Disposed(Exception e)
        {
            return new ObjectDisposedException("UnityWebRequest", "Onity: the UnityWebRequest was disposed before its awaited operation completed; dispose it after the await (e.g. 'using'). (" + e.GetType().Name + ": " + e.Message + ")");
        }

        /// <summary>The cancel path's <c>Abort()</c>: a request the user already disposed has
        /// nothing left to abort (Unity throws on it), so that is not an error.</summary>
        internal static void Abort(UnityWebRequest request)
        {
            try { request.Abort(); }
            catch (ArgumentNullException) { }
            catch (NullReferenceException) { }
        }
    }
}
#endif
