// Test-only stand-in: the 2D physics types the package's message triggers name (UnityCsReference
// 2022.3, Modules/Physics2D/ScriptBindings/Physics2D.bindings.cs: Collider2D and Joint2D are
// Behaviours, Collision2D a plain class). Never shipped.
namespace UnityEngine
{
    public partial class Collider2D : Behaviour
    {
    }

    public partial class Joint2D : Behaviour
    {
    }

    public partial class Collision2D
    {
    }
}
