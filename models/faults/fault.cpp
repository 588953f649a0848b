#include "models/faults/fault.hpp"

#include <algorithm>
#include <cassert>

namespace locksim {

static_assert([] {
    bool all = true;
    for_each_fault_family([&]<class F>(std::type_identity<F>) { all = all && FaultFamily<F>; });
    return all;
}());

std::vector<std::string_view> fault_keys() {
    std::vector<std::string_view> keys;
    // One push_back at a time: GCC 12 warns falsely (-Wstringop-overflow) on a range insert here.
    for_each_fault_family([&]<class F>(std::type_identity<F>) {
        for (const FaultEntry& entry : F::entries) keys.push_back(entry.key);
    });
    return keys;
}

std::string fault_words(const Fault& fault) {
    return std::visit(
        [](const auto& f) {
            std::string who;
            if constexpr (requires { f.node; }) who = target_words(f.node);
            return f.words(who);
        },
        fault);
}

std::vector<std::string_view> node_fault_keys() {
    std::vector<std::string_view> keys;
    for_each_fault_family([&]<class F>(std::type_identity<F>) {
        if constexpr (requires(F f) { f.node; })
            for (const FaultEntry& entry : F::entries) keys.push_back(entry.key);
    });
    return keys;
}

std::vector<std::string_view> amount_fields() {
    std::vector<std::string_view> fields;
    for_each_fault_family([&]<class F>(std::type_identity<F>) {
        for (std::string_view field : F::amounts)
            if (std::find(fields.begin(), fields.end(), field) == fields.end()) fields.push_back(field);
    });
    return fields;
}

bool shows_a_fault(std::string_view kind) {
    bool shows = false;
    for_each_fault_family([&]<class F>(std::type_identity<F>) {
        for (const KindSpec* shown : F::shown_by) shows = shows || kind == shown->name;
    });
    return shows;
}

std::vector<const ExploreShape*> explorable_families() {
    std::vector<const ExploreShape*> shapes;
    for_each_fault_family([&]<class F>(std::type_identity<F>) {
        for (const ExploreShape& shape : F::explore) shapes.push_back(&shape);
    });
    return shapes;
}

const ExploreShape* explore_shape(std::string_view key) {
    const ExploreShape* found = nullptr;
    for_each_fault_family([&]<class F>(std::type_identity<F>) {
        for (const ExploreShape& shape : F::explore)
            if (shape.key == key) found = &shape;
    });
    return found;
}

Fault explored_fault(std::string_view key, std::string node, EventTrigger when, std::optional<Duration> size,
                     const ExploreDetails& details) {
    std::optional<Fault> fault;
    for_each_fault_family([&]<class F>(std::type_identity<F>) {
        if constexpr (std::size(F::explore) > 0)
            for (const ExploreShape& shape : F::explore)
                if (shape.key == key) fault = F::explored(key, std::move(node), std::move(when), size, details);
    });
    assert(fault.has_value());
    return std::move(*fault);
}

Fault placed_fault(std::string_view key, std::string node, Instant at, std::optional<Duration> size,
                   const ExploreDetails& details) {
    Fault fault = explored_fault(key, std::move(node), EventTrigger{}, size, details);
    std::visit(
        [at](auto& f) {
            f.at = at;
            f.when.reset();
        },
        fault);
    return fault;
}

}  // namespace locksim
