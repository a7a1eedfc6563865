// Binding an async stream to a uGUI control (UniTask's UnityBindingExtensions.BindTo): each value
// is written to the control until the stream ends, the token is canceled (by default: the
// control's destruction) or it fails. In Onity.Unity.UGUI (com.unity.ugui).
#if (UNITY_5_3_OR_NEWER || ONITY_UNITY_STANDIN) && ONITY_UGUI_SUPPORT
using System;
using System.Threading;
using Onity.Triggers;
using UnityEngine;
using UnityEngine.UI;

namespace Onity
{
    /// <summary><c>BindTo</c>: writes each value of a stream to a target (a Text's text, a
    /// Selectable's interactable, or any action). The binding runs until the stream ends, the token
    /// is canceled (without one: when the control or MonoBehaviour is destroyed) or the stream
    /// fails. With <c>rebindOnError</c> a failure of the stream enumerates it again once (again
    /// after each value received since); a second failure in a row, or one thrown by the bind
    /// action, goes to <see cref="OnityTask.UnobservedTaskException"/>. The binding allocates when
    /// it starts; per value only what the stream and the action do (<c>ToString</c> of a non-string
    /// value). Owner thread.</summary>
    public static class OnityUnityBindingExtensions
    {
        static readonly Action<Text, string> SetText = (t, s) => t.text = s;
        static readonly Action<Selectable, bool> SetInteractable = (s, b) => s.interactable = b;

        static class TextOf<T>
        {
            internal static readonly Action<Text, T> Set = (t, v) => t.text = v == null ? "" : v.ToString();
        }

        public static void BindTo(this IOnityAsyncEnumerable<string> source, Text text, bool rebindOnError = true)
        {
            Bind(source, text, SetText, DestroyToken(text), rebindOnError);
        }

        public static void BindTo(this IOnityAsyncEnumerable<string> source, Text text, CancellationToken cancellationToken, bool rebindOnError = true)
        {
            Bind(source, text, SetText, cancellationToken, rebindOnError);
        }

        public static void BindTo<T>(this IOnityAsyncEnumerable<T> source, Text text, bool rebindOnError = true)
        {
            Bind(source, text, TextOf<T>.Set, DestroyToken(text), rebindOnError);
        }

        public static void BindTo<T>(this IOnityAsyncEnumerable<T> source, Text text, CancellationToken cancellationToken, bool rebindOnError = true)
        {
            Bind(source, text, TextOf<T>.Set, cancellationToken, rebindOnError);
        }

        /// <summary>Binds the property's values (its current one first) to <paramref name="text"/>.</summary>
        public static void BindTo<T>(this OnityAsyncReactiveProperty<T> source, Text text, bool rebindOnError = true)
        {
            Bind(source, text, TextOf<T>.Set, DestroyToken(text), rebindOnError);
        }

        public static void BindTo(this IOnityAsyncEnumerable<bool> source, Selectable selectable, bool rebindOnError = true)
        {
            Bind(source, selectable, SetInteractable, DestroyToken(selectable), rebindOnError);
        }

        public static void BindTo(this IOnityAsyncEnumerable<bool> source, Selectable selectable, CancellationToken cancellationToken, bool rebindOnError = true)
        {
            Bind(source, selectable, SetInteractable, cancellationToken, rebindOnError);
        }

        /// <summary>Calls <paramref name="bindAction"/> with each value until
        /// <paramref name="monoBehaviour"/> is destroyed.</summary>
        public static void BindTo<TSource, TObject>(this IOnityAsyncEnumerable<TSource> source, TObject monoBehaviour, Action<TObject, TSource> bindAction, bool rebindOnError = true)
            where TObject : MonoBehaviour
        {
            Bind(source, monoBehaviour, bindAction, DestroyToken(monoBehaviour), rebindOnError);
        }

        public static void BindTo<TSource, TObject>(this IOnityAsyncEnumerable<TSource> source, TObject bindTarget, Action<TObject, TSource> bindAction, CancellationToken cancellationToken, bool rebindOnError = true)
        {
            Bind(source, bindTarget, bindAction, cancellationToken, rebindOnError);
        }

        static CancellationToken DestroyToken(MonoBehaviour target)
        {
            if (ReferenceEquals(target, null)) throw new ArgumentNullException("target");
            return target.GetCancellationTokenOnDestroy();
        }

        static void Bind<TSource, TObject>(IOnityAsyncEnumerable<TSource> source, TObject target, Action<TObject, TSource> bindAction, CancellationToken cancellationToken, bool rebindOnError)
        {
            if (source == null) throw new ArgumentNullException("source");
            if (target == null) throw new ArgumentNullException("target");
            if (bindAction == null) throw new ArgumentNullException("bindAction");
            new Binding<TSource, TObject>(source, target, bindAction, cancellationToken, rebindOnError).Start();
        }

        /// <summary>One binding: a ForEachAsync over the stream, enumerated again after a failure.</summary>
        sealed class Binding<TSource, TObject>
        {
            readonly IOnityAsyncEnumerable<TSource> source;
            readonly TObject target;
            readonly Action<TObject, TSource> bindAction;
            readonly CancellationToken cancellationToken;
            readonly bool rebindOnError;
            readonly Action<TSource> onNext;
            readonly Action onEnd;
            OnityTask.Awaiter awaiter;
            bool repeat;          // rebound after a failure, no value since
            Exception bindError;  // thrown by the bind action: not a failure of the stream

            internal Binding(IOnityAsyncEnumerable<TSource> source, TObject target, Action<TObject, TSource> bindAction, CancellationToken cancellationToken, bool rebindOnError)
            {
                this.source = source;
                this.target = target;
                this.bindAction = bindAction;
                this.cancellationToken = cancellationToken;
                this.rebindOnError = rebindOnError;
                onNext = OnNext;
                onEnd = OnEnd;
            }

            internal void Start()
            {
                awaiter = source.ForEachAsync(onNext, cancellationToken).GetAwaiter();
                if (awaiter.IsCompleted) OnEnd();
                else awaiter.UnsafeOnCompleted(onEnd);
            }

            void OnNext(TSource value)
            {
                repeat = false;
                try { bindAction(target, value); }
                catch (Exception ex)
                {
                    bindError = ex;
                    throw;
                }
            }

            void OnEnd()
            {
                try { awaiter.GetResult(); }
                catch (OperationCanceledException) { }
                catch (Exception ex)
                {
                    if (bindError == null && rebindOnError && !repeat)
                    {
                        repeat = true;
                        Start();
                        return;
                    }
                    OnityTask.FromException(ex).Forget();
                }
            }
        }
    }
}
#endif
