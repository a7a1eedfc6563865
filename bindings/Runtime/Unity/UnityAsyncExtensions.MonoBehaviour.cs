// StartAsyncCoroutine: an async method run with its MonoBehaviour's destroy token.
#if UNITY_5_3_OR_NEWER || ONITY_UNITY_STANDIN
using System;
using System.Threading;
using UnityEngine;

namespace Onity
{
    public static partial class OnityUnityAsyncExtensions
    {
        /// <summary>Runs <paramref name="asyncCoroutine"/> with a token canceled when
        /// <paramref name="monoBehaviour"/> is destroyed (its <c>destroyCancellationToken</c>), and
        /// returns its task (UniTask's <c>StartAsyncCoroutine</c>).</summary>
        public static OnityTask StartAsyncCoroutine(this MonoBehaviour monoBehaviour, Func<CancellationToken, OnityTask> asyncCoroutine)
        {
            if (monoBehaviour == null) throw new ArgumentNullException("monoBehaviour");
            if (asyncCoroutine == null) throw new ArgumentNullException("asyncCoroutine");
            return asyncCoroutine(monoBehaviour.destroyCancellationToken);
        }
    }
}
#endif
