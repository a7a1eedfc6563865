#!/usr/bin/env python3
"""Generates the MonoBehaviour message triggers of the Unity package from one list (MESSAGES):
bindings/Runtime/Unity/Triggers/OnityMessageTriggers.g.cs and .2.g.cs, one OnityTriggerBase<T>
component per message (UniTask's Async*Trigger: the message as a one-shot await,
`XAsync(cancellationToken)`, as an async stream, the trigger itself, and as UniTask's reusable
handler, `GetXxxAsyncHandler([token])`: an OnityTriggerHandler<T> awaited again and again through
the message's interface IOnityXxxHandler, in OnityTriggerHandlers.g.cs) and its
`GetOnity*Trigger()` extensions on GameObject and Component. OnDestroy is hand-written
(OnityLifecycleTriggers.cs: it completes at once when already destroyed). Messages whose types live in an optional module are compiled only with that module's
define (set by the asmdef's versionDefines). --check exits 1 when the file is stale (run by
scripts/test-unity.sh).

The EventSystems handlers (EVENT_SYSTEM: pointer, drag, select, ...) go to
bindings/Runtime/Unity/UGUI/OnityEventSystemTriggers.g.cs (assembly Onity.Unity.UGUI: they need
com.unity.ugui). The uGUI controls' and TMP_InputField's UnityEvent waits, streams and reusable
handlers (UGUI_EVENTS, TMP_EVENTS) go to Unity/UGUI/UnityAsyncExtensions.uGUI.g.cs and
Unity/TextMeshPro/OnityTextMeshProExtensions.g.cs. Not generated: OnAudioFilterRead (Unity calls it on the audio thread; the triggers
are raised on the main thread).
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TRIGGERS = os.path.join(ROOT, "bindings", "Runtime", "Unity", "Triggers")
OUT = os.path.join(TRIGGERS, "OnityMessageTriggers.g.cs")
OUT2 = os.path.join(TRIGGERS, "OnityMessageTriggers.2.g.cs")
HANDLERS_OUT = os.path.join(TRIGGERS, "OnityTriggerHandlers.g.cs")

# (trigger name, Unity message signature, async method, value type or None, value expression, define)
PHYS, PHYS2D = "ONITY_PHYSICS_SUPPORT", "ONITY_PHYSICS2D_SUPPORT"
MESSAGES = [
    ("FixedUpdate", "FixedUpdate()", "FixedUpdateAsync", None, None, None),
    ("LateUpdate", "LateUpdate()", "LateUpdateAsync", None, None, None),
    ("Update", "Update()", "UpdateAsync", None, None, None),
    ("AnimatorIK", "OnAnimatorIK(int layerIndex)", "OnAnimatorIKAsync", "int", "layerIndex", None),
    ("AnimatorMove", "OnAnimatorMove()", "OnAnimatorMoveAsync", None, None, None),
    ("ApplicationFocus", "OnApplicationFocus(bool hasFocus)", "OnApplicationFocusAsync", "bool", "hasFocus", None),
    ("ApplicationPause", "OnApplicationPause(bool pauseStatus)", "OnApplicationPauseAsync", "bool", "pauseStatus", None),
    ("ApplicationQuit", "OnApplicationQuit()", "OnApplicationQuitAsync", None, None, None),
    ("BecameInvisible", "OnBecameInvisible()", "OnBecameInvisibleAsync", None, None, None),
    ("BecameVisible", "OnBecameVisible()", "OnBecameVisibleAsync", None, None, None),
    ("BeforeTransformParentChanged", "OnBeforeTransformParentChanged()", "OnBeforeTransformParentChangedAsync", None, None, None),
    ("OnCanvasGroupChanged", "OnCanvasGroupChanged()", "OnCanvasGroupChangedAsync", None, None, None),
    ("CollisionEnter", "OnCollisionEnter(Collision collision)", "OnCollisionEnterAsync", "Collision", "collision", PHYS),
    ("CollisionExit", "OnCollisionExit(Collision collision)", "OnCollisionExitAsync", "Collision", "collision", PHYS),
    ("CollisionStay", "OnCollisionStay(Collision collision)", "OnCollisionStayAsync", "Collision", "collision", PHYS),
    ("CollisionEnter2D", "OnCollisionEnter2D(Collision2D collision)", "OnCollisionEnter2DAsync", "Collision2D", "collision", PHYS2D),
    ("CollisionExit2D", "OnCollisionExit2D(Collision2D collision)", "OnCollisionExit2DAsync", "Collision2D", "collision", PHYS2D),
    ("CollisionStay2D", "OnCollisionStay2D(Collision2D collision)", "OnCollisionStay2DAsync", "Collision2D", "collision", PHYS2D),
    ("ControllerColliderHit", "OnControllerColliderHit(ControllerColliderHit hit)", "OnControllerColliderHitAsync", "ControllerColliderHit", "hit", PHYS),
    ("Disable", "OnDisable()", "OnDisableAsync", None, None, None),
    ("DrawGizmos", "OnDrawGizmos()", "OnDrawGizmosAsync", None, None, None),
    ("DrawGizmosSelected", "OnDrawGizmosSelected()", "OnDrawGizmosSelectedAsync", None, None, None),
    ("Enable", "OnEnable()", "OnEnableAsync", None, None, None),
    ("GUI", "OnGUI()", "OnGUIAsync", None, None, None),
    ("JointBreak", "OnJointBreak(float breakForce)", "OnJointBreakAsync", "float", "breakForce", PHYS),
    ("JointBreak2D", "OnJointBreak2D(Joint2D brokenJoint)", "OnJointBreak2DAsync", "Joint2D", "brokenJoint", PHYS2D),
    ("MouseDown", "OnMouseDown()", "OnMouseDownAsync", None, None, None),
    ("MouseDrag", "OnMouseDrag()", "OnMouseDragAsync", None, None, None),
    ("MouseEnter", "OnMouseEnter()", "OnMouseEnterAsync", None, None, None),
    ("MouseExit", "OnMouseExit()", "OnMouseExitAsync", None, None, None),
    ("MouseOver", "OnMouseOver()", "OnMouseOverAsync", None, None, None),
    ("MouseUp", "OnMouseUp()", "OnMouseUpAsync", None, None, None),
    ("MouseUpAsButton", "OnMouseUpAsButton()", "OnMouseUpAsButtonAsync", None, None, None),
    ("ParticleCollision", "OnParticleCollision(GameObject other)", "OnParticleCollisionAsync", "GameObject", "other", None),
    ("ParticleSystemStopped", "OnParticleSystemStopped()", "OnParticleSystemStoppedAsync", None, None, None),
    ("ParticleTrigger", "OnParticleTrigger()", "OnParticleTriggerAsync", None, None, None),
    # Unity sends it without arguments (the particle data is the scheduled job's): UniTask's
    # UniTask<ParticleSystemJobData> is an OnityTask here.
    ("ParticleUpdateJobScheduled", "OnParticleUpdateJobScheduled()", "OnParticleUpdateJobScheduledAsync", None, None, None),
    ("PostRender", "OnPostRender()", "OnPostRenderAsync", None, None, None),
    ("PreCull", "OnPreCull()", "OnPreCullAsync", None, None, None),
    ("PreRender", "OnPreRender()", "OnPreRenderAsync", None, None, None),
    ("RectTransformDimensionsChange", "OnRectTransformDimensionsChange()", "OnRectTransformDimensionsChangeAsync", None, None, None),
    ("RectTransformRemoved", "OnRectTransformRemoved()", "OnRectTransformRemovedAsync", None, None, None),
    ("RenderImage", "OnRenderImage(RenderTexture source, RenderTexture destination)", "OnRenderImageAsync",
     "ValueTuple<RenderTexture, RenderTexture>", "new ValueTuple<RenderTexture, RenderTexture>(source, destination)", None),
    ("RenderObject", "OnRenderObject()", "OnRenderObjectAsync", None, None, None),
    ("ServerInitialized", "OnServerInitialized()", "OnServerInitializedAsync", None, None, None),
    ("TransformChildrenChanged", "OnTransformChildrenChanged()", "OnTransformChildrenChangedAsync", None, None, None),
    ("TransformParentChanged", "OnTransformParentChanged()", "OnTransformParentChangedAsync", None, None, None),
    ("TriggerEnter", "OnTriggerEnter(Collider other)", "OnTriggerEnterAsync", "Collider", "other", PHYS),
    ("TriggerExit", "OnTriggerExit(Collider other)", "OnTriggerExitAsync", "Collider", "other", PHYS),
    ("TriggerStay", "OnTriggerStay(Collider other)", "OnTriggerStayAsync", "Collider", "other", PHYS),
    ("TriggerEnter2D", "OnTriggerEnter2D(Collider2D other)", "OnTriggerEnter2DAsync", "Collider2D", "other", PHYS2D),
    ("TriggerExit2D", "OnTriggerExit2D(Collider2D other)", "OnTriggerExit2DAsync", "Collider2D", "other", PHYS2D),
    ("TriggerStay2D", "OnTriggerStay2D(Collider2D other)", "OnTriggerStay2DAsync", "Collider2D", "other", PHYS2D),
    ("Validate", "OnValidate()", "OnValidateAsync", None, None, None),
    ("WillRenderObject", "OnWillRenderObject()", "OnWillRenderObjectAsync", None, None, None),
    ("Reset", "Reset()", "ResetAsync", None, None, None),
]


# The EventSystems handlers (com.unity.ugui): (handler interface, method, event data type).
UGUI_OUT = os.path.join(ROOT, "bindings", "Runtime", "Unity", "UGUI", "OnityEventSystemTriggers.g.cs")
EVENT_SYSTEM = [
    ("IBeginDragHandler", "OnBeginDrag", "PointerEventData"),
    ("ICancelHandler", "OnCancel", "BaseEventData"),
    ("IDeselectHandler", "OnDeselect", "BaseEventData"),
    ("IDragHandler", "OnDrag", "PointerEventData"),
    ("IDropHandler", "OnDrop", "PointerEventData"),
    ("IEndDragHandler", "OnEndDrag", "PointerEventData"),
    ("IInitializePotentialDragHandler", "OnInitializePotentialDrag", "PointerEventData"),
    ("IMoveHandler", "OnMove", "AxisEventData"),
    ("IPointerClickHandler", "OnPointerClick", "PointerEventData"),
    ("IPointerDownHandler", "OnPointerDown", "PointerEventData"),
    ("IPointerEnterHandler", "OnPointerEnter", "PointerEventData"),
    ("IPointerExitHandler", "OnPointerExit", "PointerEventData"),
    ("IPointerUpHandler", "OnPointerUp", "PointerEventData"),
    ("IScrollHandler", "OnScroll", "PointerEventData"),
    ("ISelectHandler", "OnSelect", "BaseEventData"),
    ("ISubmitHandler", "OnSubmit", "BaseEventData"),
    ("IUpdateSelectedHandler", "OnUpdateSelected", "BaseEventData"),
]


def handler_parts(method, vtype, handler_cls, new_handler):
    """The message's handler interface, its implementation by the handler class (a partial) and
    the trigger's GetXxxAsyncHandler methods (UniTask's IAsyncXxxHandler / AsyncTriggerHandler<T>)."""
    stem = method[:-len("Async")]
    iface = "IOnity%sHandler" % stem
    ret = "OnityTask<%s>" % vtype if vtype else "OnityTask"
    call = "NextAsAsync<%s>()" % vtype if vtype else "NextUnitAsync()"
    decl = [
        "    /// <summary>A reusable handler of <c>%s</c> (a trigger's <c>Get%sAsyncHandler()</c>): <see cref=\"%s\"/> can be awaited again and again; Dispose ends it.</summary>" % (stem, stem, method),
        "    public interface %s : IDisposable" % iface,
        "    {",
        "        %s %s();" % (ret, method),
        "    }",
        "",
        "    public partial class %s<T> : %s" % (handler_cls, iface),
        "    {",
        "        %s %s.%s() { return %s; }" % (ret, iface, method, call),
        "    }",
        "",
    ]
    members = [
        "",
        "        /// <summary>A handler whose <c>%s()</c> can be awaited repeatedly (until disposed or the trigger is destroyed).</summary>" % method,
        "        public %s Get%sAsyncHandler() { return %s(Event, default(CancellationToken), false); }" % (iface, stem, new_handler),
        "",
        "        /// <summary>As <see cref=\"Get%sAsyncHandler()\"/>, ended when <paramref name=\"cancellationToken\"/> is canceled.</summary>" % stem,
        "        public %s Get%sAsyncHandler(CancellationToken cancellationToken) { return %s(Event, cancellationToken, false); }" % (iface, stem, new_handler),
    ]
    return decl, members


def render_ugui():
    L = ["// <auto-generated> by scripts/gen_csharp_triggers.py from its EVENT_SYSTEM list: do not edit. </auto-generated>",
         "// uGUI EventSystems handlers as awaitables and async streams (UniTask's pointer / drag / select",
         "// triggers); in Onity.Unity.UGUI, compiled only with com.unity.ugui (ONITY_UGUI_SUPPORT).",
         "#if (UNITY_5_3_OR_NEWER || ONITY_UNITY_STANDIN) && ONITY_UGUI_SUPPORT",
         "using System;", "using System.Threading;", "using UnityEngine;", "using UnityEngine.EventSystems;", "",
         "namespace Onity.Triggers", "{"]
    L += [
        "    /// <summary>The handler of the EventSystems triggers (<c>GetOnPointerClickAsyncHandler()</c>, ...): an",
        "    /// <see cref=\"OnityTriggerHandler{T}\"/> with their handler interfaces.</summary>",
        "    public sealed partial class OnityEventSystemTriggerHandler<T> : OnityTriggerHandler<T>",
        "    {",
        "        public OnityEventSystemTriggerHandler(OnityAsyncEvent<T> asyncEvent, CancellationToken cancellationToken, bool callOnce)",
        "            : base(asyncEvent, cancellationToken, callOnce) { }",
        "    }",
        "",
    ]
    for iface, method, data in EVENT_SYSTEM:
        name = method[2:]
        decl, members = handler_parts(method + "Async", data, "OnityEventSystemTriggerHandler", "new OnityEventSystemTriggerHandler<%s>" % data)
        L += decl
        L += [
            "    /// <summary><c>%s.%s</c> as an awaitable (<see cref=\"%sAsync\"/>) and an async stream (this trigger).</summary>" % (iface, method, method),
            "    public sealed class Onity%sTrigger : OnityTriggerBase<%s>, %s" % (name, data, iface),
            "    {",
            "        void %s.%s(%s eventData) { RaiseEvent(eventData); }" % (iface, method, data),
            "",
            "        /// <summary>The next event; canceled by the token (at the next run of Update) or when the trigger is destroyed.</summary>",
            "        public OnityTask<%s> %sAsync(CancellationToken cancellationToken = default(CancellationToken)) { return NextAsync(cancellationToken); }" % (data, method),
        ] + members + [
            "    }",
            "",
        ]
    L += ["    public static class OnityEventSystemTriggerExtensions", "    {",
          "        static T GetOrAdd<T>(GameObject gameObject) where T : Component",
          "        {",
          "            if (gameObject == null) throw new ArgumentNullException(\"gameObject\");",
          "            var t = gameObject.GetComponent<T>();",
          "            return t != null ? t : gameObject.AddComponent<T>();",
          "        }", ""]
    for iface, method, data in EVENT_SYSTEM:
        cls = "Onity%sTrigger" % method[2:]
        L.append("        public static %s GetOnity%sTrigger(this GameObject gameObject) { return GetOrAdd<%s>(gameObject); }" % (cls, method[2:], cls))
        L.append("        public static %s GetOnity%sTrigger(this Component component) { return GetOrAdd<%s>(component.gameObject); }" % (cls, method[2:], cls))
    L += ["    }", "}", "#endif"]
    return "\n".join(L) + "\n"


# The UnityEvent-backed controls' events (UGUI_EVENTS: uGUI; TMP_EVENTS: TextMeshPro's
# TMP_InputField), each as a wait (OnXAsync), a stream (OnXAsAsyncEnumerable, with and without its
# own token) and a reusable handler (GetAsyncXEventHandler, with and without a token), over the
# UnityEvent extensions of Unity/UnityAsyncExtensions.UnityEvent*.cs.
UGUI_EVENTS_OUT = os.path.join(ROOT, "bindings", "Runtime", "Unity", "UGUI", "UnityAsyncExtensions.uGUI.g.cs")
TMP_EVENTS_OUT = os.path.join(ROOT, "bindings", "Runtime", "Unity", "TextMeshPro", "OnityTextMeshProExtensions.g.cs")
# (control type, parameter, event, value type (None: no argument), the wait's doc)
UGUI_EVENTS = [
    ("Button", "button", "onClick", None, "The next click."),
    ("Toggle", "toggle", "onValueChanged", "bool", "The next value change (the new value)."),
    ("Slider", "slider", "onValueChanged", "float", "The next value change (the new value)."),
    ("Scrollbar", "scrollbar", "onValueChanged", "float", "The next value change (the new value)."),
    ("ScrollRect", "scrollRect", "onValueChanged", "UnityEngine.Vector2", "The next scroll (the normalized position)."),
    ("Dropdown", "dropdown", "onValueChanged", "int", "The next selection (the option's index)."),
    ("InputField", "inputField", "onValueChanged", "string", "The next text change (the text)."),
    ("InputField", "inputField", "onEndEdit", "string", "The next end of editing (the text)."),
]
# The order of their reusable handlers (indexes into UGUI_EVENTS).
UGUI_HANDLERS = [0, 1, 3, 4, 2, 7, 6, 5]
SEL = "(string, int, int)"
# (event, value type, the wait's doc): TMP_InputField's; a text-selection event is relayed as a tuple.
TMP_EVENTS = [
    ("onValueChanged", "string", "The next text change (the text)."),
    ("onEndEdit", "string", "The next end of editing (the text)."),
    ("onEndTextSelection", SEL, "The next end of a text selection (text, selection start, selection end)."),
    ("onTextSelection", SEL, "The next text selection (text, selection start, selection end)."),
    ("onDeselect", "string", "The next deselection (the text)."),
    ("onSelect", "string", "The next selection (the text)."),
    ("onSubmit", "string", "The next submit (the text)."),
]


def event_members(ctl, p, ev, v, doc, expr, docs_all, stream_doc=None):
    """The wait and the two streams of one event (expr: the UnityEvent)."""
    stem = ev[2:]
    V = v or "AsyncUnit"
    task = "OnityTask<%s>" % v if v else "OnityTask"
    stream_cls = "OnityUnityEventAsyncEnumerable<%s>" % v if v else "OnityUnityEventAsyncEnumerable"
    L = ["        /// <summary>%s</summary>" % doc,
         "        public static %s On%sAsync(this %s %s, CancellationToken cancellationToken = default(CancellationToken))" % (task, stem, ctl, p),
         "        {",
         "            return %s.OnInvokeAsync(%s, cancellationToken);" % (expr, p),
         "        }", ""]
    if stream_doc:
        L.append("        /// <summary>%s</summary>" % stream_doc)
    L += ["        public static IOnityAsyncEnumerable<%s> On%sAsAsyncEnumerable(this %s %s)" % (V, stem, ctl, p),
          "        {",
          "            return %s.OnInvokeAsAsyncEnumerable(%s);" % (expr, p),
          "        }", ""]
    if docs_all:
        L += ["        /// <summary>As <see cref=\"On%sAsAsyncEnumerable(%s)\"/>, ended by <paramref name=\"cancellationToken\"/> too" % (stem, ctl),
              "        /// (<see cref=\"OperationCanceledException\"/> carrying the canceled token).</summary>"]
    L += ["        public static IOnityAsyncEnumerable<%s> On%sAsAsyncEnumerable(this %s %s, CancellationToken cancellationToken)" % (V, stem, ctl, p),
          "        {",
          "            return new %s(%s, %s, cancellationToken);" % (stream_cls, expr, p),
          "        }", ""]
    return L


def handler_iface(ev, v):
    stem = ev[2:]
    return "IOnity%sEventHandler%s" % (stem, "<%s>" % v if v else "")


def render_ugui_events():
    L = ["// <auto-generated> by scripts/gen_csharp_triggers.py from its UGUI_EVENTS list: do not edit. </auto-generated>",
         "// uGUI events as awaitables, once and as streams. uGUI is a package (com.unity.ugui, assembly",
         "// UnityEngine.UI): this file is its own assembly, Onity.Unity.UGUI, compiled only when the package",
         "// is installed (defineConstraints ONITY_UGUI_SUPPORT, set by the asmdef's versionDefines).",
         "#if (UNITY_5_3_OR_NEWER || ONITY_UNITY_STANDIN) && ONITY_UGUI_SUPPORT",
         "using System;", "using System.Threading;", "using UnityEngine.UI;", "", "namespace Onity", "{",
         "    /// <summary>Awaiting uGUI events. Each control's event gets one listener, kept until the control",
         "    /// is destroyed and shared by every wait and stream on it: after the first, a wait allocates",
         "    /// nothing. A wait completes at the next invocation; it is canceled at once when the control is",
         "    /// destroyed (its <c>destroyCancellationToken</c>), or at the next run of Update after",
         "    /// <c>cancellationToken</c> is canceled. A stream ends (<c>MoveNextAsync</c> returns false) when",
         "    /// the control is destroyed; it is pulled (an invocation while its consumer is busy is not kept",
         "    /// for it). Owner thread (the main thread).</summary>",
         "    public static class OnityUGuiExtensions", "    {"]
    for ctl, p, ev, v, doc in UGUI_EVENTS:
        L += event_members(ctl, p, ev, v, doc, "%s.%s" % (p, ev), True, None if v else "The clicks, as a stream.")
    L += ["        // Reusable handlers (UniTask's GetAsyncXxxEventHandler): awaited again and again without",
          "        // allocating; ended by Dispose, the token, or the control's destruction (OnityUnityEventHandler).", ""]
    for i in UGUI_HANDLERS:
        ctl, p, ev, v, doc = UGUI_EVENTS[i]
        stem = ev[2:]
        cls = "OnityUnityEventHandler<%s>" % v if v else "OnityUnityEventHandler"
        head = "        public static %s GetAsync%sEventHandler(this %s %s" % (handler_iface(ev, v), stem, ctl, p)
        L += ["        /// <summary>A reusable handler of the %s's %s (<c>On%sAsync()</c>).</summary>" % (ctl, ev, stem),
              "%s) { return new %s(%s.%s, %s, default(CancellationToken), false); }" % (head, cls, p, ev, p),
              "%s, CancellationToken cancellationToken) { return new %s(%s.%s, %s, cancellationToken, false); }" % (head, cls, p, ev, p)]
    L += ["    }", "}", "#endif"]
    return "\n".join(L) + "\n"


def render_tmp_events():
    L = ["// <auto-generated> by scripts/gen_csharp_triggers.py from its TMP_EVENTS list: do not edit. </auto-generated>",
         "// TMP_InputField's events (see OnityTextMeshProExtensions.cs: the class, Field, Selection, Handler).",
         "#if (UNITY_5_3_OR_NEWER || ONITY_UNITY_STANDIN) && ONITY_TEXTMESHPRO_SUPPORT",
         "using System;", "using System.Threading;", "using TMPro;", "", "namespace Onity", "{",
         "    public static partial class OnityTextMeshProExtensions", "    {"]
    exprs = []
    for ev, v, doc in TMP_EVENTS:
        expr = "Field(inputField).%s" % ev
        if v == SEL:
            expr = "Selection(inputField, %s)" % expr
        exprs.append(expr)
        L += event_members("TMP_InputField", "inputField", ev, v, doc, expr, False)
    L += ["        // Reusable handlers (UniTask's GetAsyncXxxEventHandler): awaited again and again without",
          "        // allocating; ended by Dispose, the token, or the field's destruction (OnityUnityEventHandler).", ""]
    for (ev, v, doc), expr in zip(TMP_EVENTS, exprs):
        head = "        public static %s GetAsync%sEventHandler(this TMP_InputField inputField" % (handler_iface(ev, v), ev[2:])
        L += ["%s) { return Handler(inputField, %s, default(CancellationToken)); }" % (head, expr),
              "%s, CancellationToken cancellationToken) { return Handler(inputField, %s, cancellationToken); }" % (head, expr), ""]
    L.pop()
    L += ["    }", "}", "#endif"]
    return "\n".join(L) + "\n"


def guarded(define, lines):
    if not define:
        return lines
    return ["#if " + define] + lines + ["#endif"]


HEAD = "#if UNITY_5_3_OR_NEWER || ONITY_UNITY_STANDIN"


def render_file(what, body):
    L = ["// <auto-generated> by scripts/gen_csharp_triggers.py from its MESSAGES list: do not edit. </auto-generated>",
         "// " + what, HEAD, "using System;", "using System.Threading;", "using UnityEngine;", "", "namespace Onity.Triggers", "{"]
    L.extend(body)
    L += ["}", "#endif"]
    return "\n".join(L) + "\n"


def render():
    """(triggers part 1, triggers part 2 with the extensions, handler interfaces): three files,
    each under the project's file size."""
    parts, handlers = [[], []], []
    half = (len(MESSAGES) + 1) // 2
    for i, (name, message, method, vtype, vexpr, define) in enumerate(MESSAGES):
        cls = "Onity%sTrigger" % name
        t = vtype or "AsyncUnit"
        ret = "OnityTask<%s>" % vtype if vtype else "OnityTask"
        decl, members = handler_parts(method, vtype, "OnityTriggerHandler", "new OnityTriggerHandler<%s>" % t)
        handlers.extend(guarded(define, decl))
        body = [
            "    /// <summary><c>%s</c> as an awaitable (<see cref=\"%s\"/>) and an async stream (this trigger).</summary>" % (message.split("(")[0], method),
            "    public sealed class %s : OnityTriggerBase<%s>" % (cls, t),
            "    {",
            "        void %s { RaiseEvent(%s); }" % (message, vexpr or "default(AsyncUnit)"),
            "",
            "        /// <summary>The next message; canceled by the token (at the next run of Update) or when the trigger is destroyed.</summary>",
            "        public %s %s(CancellationToken cancellationToken = default(CancellationToken)) { return NextAsync(cancellationToken); }" % (ret, method),
        ] + members + [
            "    }",
            "",
        ]
        parts[0 if i < half else 1].extend(guarded(define, body))
    ext = ["    public static partial class OnityTriggerExtensions", "    {"]
    for name, message, method, vtype, vexpr, define in MESSAGES:
        cls = "Onity%sTrigger" % name
        ext.extend(guarded(define, [
            "        public static %s GetOnity%sTrigger(this GameObject gameObject) { return GetOrAdd<%s>(gameObject); }" % (cls, name, cls),
            "        public static %s GetOnity%sTrigger(this Component component) { return GetOrAdd<%s>(component.gameObject); }" % (cls, name, cls),
        ]))
    ext.append("    }")
    what = "MonoBehaviour messages as awaitables and async streams (UniTask's Async*Trigger components)"
    return (render_file(what + ", part 1.", parts[0]),
            render_file(what + ", part 2, and their GetOnity*Trigger() extensions.", parts[1] + ext),
            render_file("The message triggers' handler interfaces (UniTask's IAsyncXxxHandler), implemented by OnityTriggerHandler<T>.", handlers))


def main():
    part1, part2, handlers = render()
    files = [(OUT, part1), (OUT2, part2), (HANDLERS_OUT, handlers), (UGUI_OUT, render_ugui()),
             (UGUI_EVENTS_OUT, render_ugui_events()), (TMP_EVENTS_OUT, render_tmp_events())]
    if "--check" in sys.argv[1:]:
        bad = 0
        for path, text in files:
            cur = open(path, encoding="utf-8").read() if os.path.exists(path) else None
            if cur != text:
                print("%s is stale: run scripts/gen_csharp_triggers.py" % os.path.relpath(path, ROOT))
                bad += 1
        print("message-triggers: %d passed, %d failed" % (len(files) - bad, bad))
        return 1 if bad else 0
    for path, text in files:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
