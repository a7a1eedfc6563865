// Test-only stand-in of UnityEngine.AddressableAssets.Addressables (com.unity.addressables 1.21.x,
// Runtime/Addressables.cs; assembly Unity.Addressables): the Release overloads the package calls.
// Never shipped.
using UnityEngine.ResourceManagement.AsyncOperations;

namespace UnityEngine.AddressableAssets
{
    public static class Addressables
    {
        public static void Release<TObject>(TObject obj)
        {
            throw new System.NotSupportedException("stand-in: releasing by object is not simulated");
        }

        public static void Release<TObject>(AsyncOperationHandle<TObject> handle)
        {
            Release((AsyncOperationHandle)handle);
        }

        public static void Release(AsyncOperationHandle handle)
        {
            if (!handle.IsValid()) throw new System.Exception("Addressables.Release was called on an invalid operation handle");
            handle.m_InternalOp.Release();
        }
    }
}
