// Test-only stand-in: the physics types the package's message triggers name (UnityCsReference
// 2022.3, Modules/Physics: Collider, Collision, ControllerColliderHit). Never shipped.
namespace UnityEngine
{
    public partial class Collider : Component
    {
    }

    public partial class Collision
    {
    }

    public partial class ControllerColliderHit
    {
    }
}
