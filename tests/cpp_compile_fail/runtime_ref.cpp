// std: c++11 c++20
// Misuses of onity::Runtime (owner) and onity::RuntimeRef (view) that must
// not compile (tests/cpp_compile_fail.rs). Built once as is (the correct uses
// below must compile cleanly), then once per `ERROR n` line with -DCASE=n:
// that build must fail with an error on that line.
#include <utility>

#include "onity.hpp"

void take(onity::RuntimeRef) {}
void take_cref(const onity::RuntimeRef &) {}

void uses(onity::Runtime &owner, onity::RuntimeRef view) {
    // Correct uses: an lvalue owner gives views; views copy and reassign.
    onity::RuntimeRef a = owner;
    onity::RuntimeRef b(owner);
    const onity::RuntimeRef &c = owner;
    a = owner;
    a = view;
    b = onity::Runtime::borrow(owner.raw());
    take(owner);
    take_cref(owner);
    onity::Runtime moved = std::move(owner);  // views of it stay valid
    owner = std::move(moved);
    (void)c;
#if CASE == 1
    onity::RuntimeRef &base = owner;  // ERROR 1: a view reference bound to an owner
    base = view;                      // (would make `owner` destroy view's runtime)
#elif CASE == 2
    onity::RuntimeRef *p = new onity::Runtime();  // ERROR 2: a view pointer to an owner
    delete p;                                     // (no ~Runtime: leak, UB)
#elif CASE == 3
    onity::detail::runtime_ops &ops = owner;
    ops = view;  // ERROR 3: assigning over an owner through the shared base
#elif CASE == 4
    onity::detail::runtime_ops *ops = new onity::Runtime();
    delete ops;  // ERROR 4: deleting an owner through the shared base
#elif CASE == 5
    onity::detail::runtime_ops sliced = owner;  // ERROR 5: a sliced copy of an owner
    (void)sliced;
#elif CASE == 6
    onity::RuntimeRef t = onity::Runtime::create().unwrap();  // ERROR 6: a view of a temporary owner
    (void)t;
#elif CASE == 7
    a = onity::Runtime::create().unwrap();  // ERROR 7: same, by assignment
#elif CASE == 8
    const onity::Runtime &k = owner;
    onity::RuntimeRef t = std::move(k);  // ERROR 8: a view of a const expiring owner
    (void)t;
#elif CASE == 9
    owner = view;  // ERROR 9: an owner adopting a view's runtime (double destroy)
#elif CASE == 10
    onity::Runtime adopted(view);  // ERROR 10: same, by construction
#elif CASE == 11
    take(onity::Runtime::create().unwrap());  // ERROR 11: a temporary owner passed as a view
#endif
}
