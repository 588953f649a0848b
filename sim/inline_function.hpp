#pragma once
// A callable that keeps what it captured inside itself when that fits in `Capacity`
// bytes, as a pending event's callback, a message's delivery and a request's handler
// nearly always do: scheduling them then costs no heap allocation, where a std::function
// allocates for anything larger than two pointers. Larger callables go to the heap, so
// nothing is refused. It moves without copying what it holds; a copy (a duplicated
// message's second delivery) copies it, and copying one that holds something that cannot
// be copied is a bug in the caller.
#include <cassert>
#include <cstddef>
#include <cstring>
#include <functional>
#include <memory>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace locksim {

template <class Signature, std::size_t Capacity>
class InlineFunction;

template <class Result, class... Args, std::size_t Capacity>
class InlineFunction<Result(Args...), Capacity> {
public:
    InlineFunction() = default;
    InlineFunction(std::nullptr_t) {}  // NOLINT: implicit, as std::function's

    template <class Callable>
    requires(!std::is_same_v<std::remove_cvref_t<Callable>, InlineFunction> &&
             std::is_invocable_r_v<Result, std::remove_cvref_t<Callable>&, Args...>)
        InlineFunction(Callable&& callable) {  // NOLINT: implicit, so a lambda converts
        using Stored = std::remove_cvref_t<Callable>;
        if constexpr (fits<Stored>) {
            ::new (static_cast<void*>(storage_)) Stored(std::forward<Callable>(callable));
            operations_ = &inline_operations<Stored>;
        } else {
            ::new (static_cast<void*>(storage_)) Stored*(new Stored(std::forward<Callable>(callable)));
            operations_ = &heap_operations<Stored>;
        }
    }

    InlineFunction(InlineFunction&& other) noexcept : operations_(std::exchange(other.operations_, nullptr)) {
        if (operations_) relocate(other.storage_);
    }
    InlineFunction& operator=(InlineFunction&& other) noexcept {
        if (this != &other) {
            reset();
            operations_ = std::exchange(other.operations_, nullptr);
            if (operations_) relocate(other.storage_);
        }
        return *this;
    }
    InlineFunction(const InlineFunction& other) : operations_(other.operations_) {
        if (!operations_) return;
        if (!operations_->copy) throw std::logic_error("copying a callable that cannot be copied");
        operations_->copy(other.storage_, storage_);
    }
    InlineFunction& operator=(const InlineFunction& other) {
        if (this != &other) *this = InlineFunction(other);
        return *this;
    }
    ~InlineFunction() { reset(); }

    explicit operator bool() const { return operations_ != nullptr; }

    // Calls what it holds as a non-const object, as std::function does.
    Result operator()(Args... args) const {
        assert(operations_ != nullptr);
        return operations_->call(const_cast<unsigned char*>(storage_), std::forward<Args>(args)...);
    }

    void reset() {
        if (!operations_) return;
        const Operations* operations = std::exchange(operations_, nullptr);
        if (operations->destroy) operations->destroy(storage_);
    }

private:
    template <class Stored>
    static constexpr bool fits =
        sizeof(Stored) <= Capacity &&
        alignof(Stored) <= alignof(std::max_align_t) && std::is_nothrow_move_constructible_v<Stored>;

    // A callable that is nothing but its bytes (a lambda of pointers, numbers and instants:
    // most of them), and the pointer to one kept on the heap, moves as a copy of those bytes:
    // no indirect call, and none to destroy the first kind. Events move their callbacks
    // several times between being scheduled and run.
    struct Operations {
        Result (*call)(void* storage, Args&&... args);
        // Null when it moves as its bytes; else moves, and destroys what was moved from.
        void (*move)(void* from, void* to) noexcept;
        std::size_t byte_size;                     // when it moves as its bytes: none without captures
        void (*destroy)(void* storage) noexcept;   // null when there is nothing to destroy
        void (*copy)(const void* from, void* to);  // null when what it holds cannot be copied
    };

    // Moves what `from` holds, described by operations_, into storage_.
    // A capture of a lambda without captures is a byte nobody wrote, which GCC warns of
    // copying; copying it as bytes is well defined.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
    void relocate(unsigned char* from) noexcept {
        if (operations_->move)
            operations_->move(from, storage_);
        else if (operations_->byte_size != 0)
            std::memcpy(storage_, from, operations_->byte_size);
    }
#pragma GCC diagnostic pop

    template <class Stored>
    static constexpr bool moves_as_bytes = std::is_trivially_copyable_v<Stored>;

    template <class Held>
    static constexpr auto copier() -> void (*)(const void*, void*) {
        if constexpr (std::is_pointer_v<Held>) {
            using Stored = std::remove_pointer_t<Held>;
            if constexpr (std::is_copy_constructible_v<Stored>)
                return [](const void* from, void* to) {
                    ::new (to) Stored*(new Stored(**std::launder(static_cast<Stored* const*>(from))));
                };
            else
                return nullptr;
        } else if constexpr (std::is_copy_constructible_v<Held>) {
            return [](const void* from, void* to) { ::new (to) Held(*std::launder(static_cast<const Held*>(from))); };
        } else {
            return nullptr;
        }
    }

    template <class Stored>
    static constexpr Operations inline_operations{
        [](void* storage, Args&&... args) -> Result {
            return std::invoke(*std::launder(static_cast<Stored*>(storage)), std::forward<Args>(args)...);
        },
        moves_as_bytes<Stored> ? nullptr : +[](void* from, void* to) noexcept {
            Stored* source = std::launder(static_cast<Stored*>(from));
            ::new (to) Stored(std::move(*source));
            source->~Stored();
        },
        moves_as_bytes<Stored> && !std::is_empty_v<Stored> ? sizeof(Stored) : 0,
        moves_as_bytes<Stored>
            ? nullptr
            : +[](void* storage) noexcept { std::launder(static_cast<Stored*>(storage))->~Stored(); },
        copier<Stored>(),
    };

    template <class Stored>
    static constexpr Operations heap_operations{
        [](void* storage, Args&&... args) -> Result {
            return std::invoke(**std::launder(static_cast<Stored**>(storage)), std::forward<Args>(args)...);
        },
        nullptr,  // the pointer moves as its bytes
        sizeof(Stored*),
        [](void* storage) noexcept { delete *std::launder(static_cast<Stored**>(storage)); },
        copier<Stored*>(),
    };

    const Operations* operations_ = nullptr;
    alignas(std::max_align_t) unsigned char storage_[Capacity];
};

}  // namespace locksim
