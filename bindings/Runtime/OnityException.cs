using System;
using Onity.Native;

namespace Onity
{
    /// <summary>A failure reported by the native runtime.</summary>
    public class OnityException : Exception
    {
        public OnityStatus Status { get; private set; }
        /// <summary>The error code a native task was completed with (faulted native tasks).</summary>
        public int ErrorCode { get; private set; }

        public OnityException(OnityStatus status, string what)
            : base(what + ": " + OnityRuntime.StatusText(status) + " (" + status + ")")
        {
            Status = status;
        }

        public OnityException(int errorCode)
            : base("native task faulted with error code " + errorCode)
        {
            Status = OnityStatus.Ok;
            ErrorCode = errorCode;
        }
    }
}
