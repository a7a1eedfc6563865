// TMP_Text bindings (UniTask's TextMeshProAsyncExtensions.BindTo).
#if (UNITY_5_3_OR_NEWER || ONITY_UNITY_STANDIN) && ONITY_TEXTMESHPRO_SUPPORT
using System;
using System.Threading;
using TMPro;

namespace Onity
{
    public static partial class OnityTextMeshProExtensions
    {
        /// <summary>Sets <paramref name="text"/>'s text to each value of <paramref name="source"/>
        /// until the stream ends or the text component is destroyed. A failure of the stream rebinds
        /// once (a new enumeration) when <paramref name="rebindOnError"/>; a second failure in a row,
        /// or one without rebinding, ends the binding and goes to
        /// <see cref="OnityTask.UnobservedTaskException"/>; a cancellation just ends it. Allocates
        /// the binding once (and the stream's enumerator); nothing per value after that. Owner thread.</summary>
        public static void BindTo(this IOnityAsyncEnumerable<string> source, TMP_Text text, bool rebindOnError = true)
        {
            OnityTextBinding<string>.Start(source, text, Destroyed(text), rebindOnError);
        }

        /// <summary>As <see cref="BindTo(IOnityAsyncEnumerable{string}, TMP_Text, bool)"/>, ended by
        /// <paramref name="cancellationToken"/> (not by the component's destruction).</summary>
        public static void BindTo(this IOnityAsyncEnumerable<string> source, TMP_Text text, CancellationToken cancellationToken, bool rebindOnError = true)
        {
            OnityTextBinding<string>.Start(source, text, cancellationToken, rebindOnError);
        }

        /// <summary>As <see cref="BindTo(IOnityAsyncEnumerable{string}, TMP_Text, bool)"/>, with each
        /// value's <c>ToString()</c>.</summary>
        public static void BindTo<T>(this IOnityAsyncEnumerable<T> source, TMP_Text text, bool rebindOnError = true)
        {
            OnityTextBinding<T>.Start(source, text, Destroyed(text), rebindOnError);
        }

        public static void BindTo<T>(this IOnityAsyncEnumerable<T> source, TMP_Text text, CancellationToken cancellationToken, bool rebindOnError = true)
        {
            OnityTextBinding<T>.Start(source, text, cancellationToken, rebindOnError);
        }

        /// <summary>A reactive property's values (its current one first), as text.</summary>
        public static void BindTo<T>(this OnityAsyncReactiveProperty<T> source, TMP_Text text, bool rebindOnError = true)
        {
            OnityTextBinding<T>.Start(source, text, Destroyed(text), rebindOnError);
        }

        static CancellationToken Destroyed(TMP_Text text)
        {
            if (ReferenceEquals(text, null)) throw new ArgumentNullException("text");
            return Onity.Triggers.OnityTriggerExtensions.GetCancellationTokenOnDestroy(text);
        }
    }

    /// <summary>One binding: a hand-written <c>await foreach</c> (no state machine box) that sets the
    /// text at each value.</summary>
    internal sealed class OnityTextBinding<T>
    {
        readonly IOnityAsyncEnumerable<T> source;
        readonly TMP_Text text;
        readonly CancellationToken ct;
        readonly bool rebindOnError;
        readonly Action onMoved;
        IOnityAsyncEnumerator<T> e;
        OnityTask<bool>.Awaiter moving;
        bool retried; // a rebind since the last value

        OnityTextBinding(IOnityAsyncEnumerable<T> source, TMP_Text text, CancellationToken ct, bool rebindOnError)
        {
            this.source = source;
            this.text = text;
            this.ct = ct;
            this.rebindOnError = rebindOnError;
            onMoved = OnMoved;
        }

        internal static void Start(IOnityAsyncEnumerable<T> source, TMP_Text text, CancellationToken ct, bool rebindOnError)
        {
            if (source == null) throw new ArgumentNullException("source");
            if (ReferenceEquals(text, null)) throw new ArgumentNullException("text");
            var b = new OnityTextBinding<T>(source, text, ct, rebindOnError);
            b.e = source.GetAsyncEnumerator(ct);
            b.Pump();
        }

        void Pump()
        {
            while (true)
            {
                try { moving = e.MoveNextAsync().GetAwaiter(); }
                catch (Exception ex)
                {
                    Failed(ex);
                    return;
                }
                if (!moving.IsCompleted)
                {
                    moving.UnsafeOnCompleted(onMoved);
                    return;
                }
                if (!Step()) return;
            }
        }

        void OnMoved()
        {
            if (Step()) Pump();
        }

        /// <summary>Takes the move's outcome; true to move again.</summary>
        bool Step()
        {
            bool has;
            try { has = moving.GetResult(); }
            catch (Exception ex)
            {
                Failed(ex);
                return false;
            }
            moving = default(OnityTask<bool>.Awaiter);
            if (!has)
            {
                End(null);
                return false;
            }
            retried = false;
            try
            {
                text.text = AsText(e.Current);
            }
            catch (Exception ex)
            {
                End(ex);
                return false;
            }
            return true;
        }

        static string AsText(T v)
        {
            if (typeof(T) == typeof(string)) return (string)(object)v;
            if (!typeof(T).IsValueType && (object)v == null) return null;
            return v.ToString();
        }

        void Failed(Exception ex)
        {
            if (ex is OperationCanceledException)
            {
                End(null);
                return;
            }
            if (rebindOnError && !retried)
            {
                retried = true;
                Dispose();
                try { e = source.GetAsyncEnumerator(ct); }
                catch (Exception again)
                {
                    End(again);
                    return;
                }
                Pump();
                return;
            }
            End(ex);
        }

        void End(Exception error)
        {
            Dispose();
            if (error != null) OnityTask.FromException(error).Forget();
        }

        void Dispose()
        {
            var old = e;
            e = null;
            if (old == null) return;
            try { old.DisposeAsync().Forget(); }
            catch (Exception ex) { OnityTask.FromException(ex).Forget(); }
        }
    }
}
#endif
