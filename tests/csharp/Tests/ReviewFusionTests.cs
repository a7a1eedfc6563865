using System;
using System.Collections.Generic;
using System.Threading;

namespace Onity.Tests
{
    /// <summary>Second-reader findings on the fused operator chains (issue 28) and the new
    /// issue-27 types: each test failed before its fix.</summary>
    public class ReviewFusionTests
    {
        sealed class ThrowingSource : IOnityAsyncEnumerable<int>
        {
            public IOnityAsyncEnumerator<int> GetAsyncEnumerator(CancellationToken ct = default(CancellationToken))
            {
                throw new FormatException("no enumerator");
            }
        }

        [Test]
        public void FailedOpenReturnsEachStageToItsPoolOnce()
        {
            using (new TestHost())
            {
                // A source whose GetAsyncEnumerator throws under a two-operator chain: the stages
                // go back to their pools once each (a stage returned twice would later be rented
                // by two enumerations at once, one's elements landing in the other's sink).
                var bad = new ThrowingSource().Where(x => true).Select(x => x);
                Assert.Throws<FormatException>(() => bad.GetAsyncEnumerator(), "GetAsyncEnumerator");
                Assert.Throws<FormatException>(() => bad.ForEachAsync(x => { }), "ForEachAsync");
                var a = OnityAsyncEnumerable.Range(10, 3).Where(x => true).Select(x => x);
                var b = OnityAsyncEnumerable.Range(100, 3).Where(x => true).Select(x => x);
                var e1 = a.GetAsyncEnumerator();
                var e2 = b.GetAsyncEnumerator();
                Assert.True(e1.MoveNextAsync().GetAwaiter().GetResult(), "e1 has an element");
                Assert.Equal(10, e1.Current, "e1's first element is its own");
                Assert.True(e2.MoveNextAsync().GetAwaiter().GetResult(), "e2 has an element");
                Assert.Equal(100, e2.Current, "e2's first element is its own");
                Assert.True(e1.MoveNextAsync().GetAwaiter().GetResult(), "e1 again");
                Assert.Equal(11, e1.Current, "e1's second element");
                e1.DisposeAsync().GetAwaiter().GetResult();
                e2.DisposeAsync().GetAwaiter().GetResult();
            }
        }
    }
}
