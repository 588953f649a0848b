#pragma once
// A list that only grows, kept in chunks that never move: an element stays where it was
// put, so a pointer to it stays valid; growing copies nothing; and the memory held is what
// is used plus part of one chunk (a vector that doubles holds up to twice what it uses, and
// three times while it moves). Chunks start small and double up to a most: most lists are
// short, and a chunk freshly taken from the system costs a page fault for each page.
#include <bit>
#include <cassert>
#include <compare>
#include <cstddef>
#include <iterator>
#include <memory>
#include <utility>
#include <vector>

namespace locksim {

template <class T, std::size_t first_chunk = 64, std::size_t most_per_chunk = 4096>
class ChunkedList {
    static_assert(std::has_single_bit(first_chunk) && std::has_single_bit(most_per_chunk) &&
                  first_chunk <= most_per_chunk);

public:
    // Walks the list as a vector's iterator does: it holds the element it is at and the end
    // of that element's chunk, and finds its place again only when it crosses a chunk's edge
    // or jumps.
    class const_iterator {
    public:
        using iterator_category = std::random_access_iterator_tag;
        using value_type = T;
        using difference_type = std::ptrdiff_t;
        using pointer = const T*;
        using reference = const T&;

        const_iterator() = default;
        const_iterator(const ChunkedList* list, std::size_t at) : list_(list), at_(at) { find(); }

        const T& operator*() const { return *here_; }
        const T* operator->() const { return here_; }
        const T& operator[](difference_type n) const { return (*list_)[at_ + n]; }
        const_iterator& operator++() {
            ++at_;
            if (++here_ == chunk_end_) find();
            return *this;
        }
        const_iterator operator++(int) {
            const_iterator before = *this;
            ++*this;
            return before;
        }
        const_iterator& operator--() { return *this -= 1; }
        const_iterator operator--(int) {
            const_iterator before = *this;
            *this -= 1;
            return before;
        }
        const_iterator& operator+=(difference_type n) {
            at_ += n;
            find();
            return *this;
        }
        const_iterator& operator-=(difference_type n) { return *this += -n; }
        friend const_iterator operator+(const_iterator i, difference_type n) { return i += n; }
        friend const_iterator operator+(difference_type n, const_iterator i) { return i += n; }
        friend const_iterator operator-(const_iterator i, difference_type n) { return i -= n; }
        friend difference_type operator-(const const_iterator& a, const const_iterator& b) {
            return static_cast<difference_type>(a.at_) - static_cast<difference_type>(b.at_);
        }
        friend bool operator==(const const_iterator& a, const const_iterator& b) { return a.at_ == b.at_; }
        friend auto operator<=>(const const_iterator& a, const const_iterator& b) { return a.at_ <=> b.at_; }

    private:
        // Points at the element at at_, or nowhere past the last.
        void find() {
            if (at_ >= list_->size_) {
                here_ = chunk_end_ = nullptr;
                return;
            }
            const Place place = place_of(at_);
            here_ = list_->chunks_[place.chunk] + place.offset;
            chunk_end_ = list_->chunks_[place.chunk] + chunk_size(place.chunk);
        }

        const ChunkedList* list_ = nullptr;
        std::size_t at_ = 0;
        const T* here_ = nullptr;
        const T* chunk_end_ = nullptr;
    };
    using iterator = const_iterator;
    using value_type = T;
    using size_type = std::size_t;

    ChunkedList() = default;
    ChunkedList(const ChunkedList& other) {
        for (const T& element : other) push_back(element);
    }
    ChunkedList(ChunkedList&& other) noexcept
        : chunks_(std::move(other.chunks_)), size_(std::exchange(other.size_, 0)) {}
    ChunkedList& operator=(ChunkedList other) noexcept {
        std::swap(chunks_, other.chunks_);
        std::swap(size_, other.size_);
        return *this;
    }
    ~ChunkedList() {
        for (std::size_t i = 0; i < size_; ++i) std::destroy_at(&(*this)[i]);
        for (std::size_t c = 0; c < chunks_.size(); ++c) std::allocator<T>().deallocate(chunks_[c], chunk_size(c));
    }

    void push_back(const T& element) {
        const Place place = place_of(size_);
        if (place.chunk == chunks_.size()) chunks_.push_back(std::allocator<T>().allocate(chunk_size(place.chunk)));
        std::construct_at(chunks_[place.chunk] + place.offset, element);
        ++size_;
    }

    const T& operator[](std::size_t at) const {
        assert(at < size_);
        const Place place = place_of(at);
        return chunks_[place.chunk][place.offset];
    }
    const T& front() const { return (*this)[0]; }
    const T& back() const { return (*this)[size_ - 1]; }
    std::size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    const_iterator begin() const { return const_iterator(this, 0); }
    const_iterator end() const { return const_iterator(this, size_); }

    // The bytes its chunks hold, used or not.
    std::size_t bytes_held() const {
        std::size_t elements = 0;
        for (std::size_t c = 0; c < chunks_.size(); ++c) elements += chunk_size(c);
        return elements * sizeof(T);
    }

private:
    // first_chunk << c elements in chunk c while they double; most_per_chunk from then on.
    static constexpr std::size_t doubling_chunks = std::bit_width(most_per_chunk / first_chunk);
    static constexpr std::size_t doubling_capacity = first_chunk * ((std::size_t{1} << doubling_chunks) - 1);

    static std::size_t chunk_size(std::size_t chunk) {
        return chunk < doubling_chunks ? first_chunk << chunk : most_per_chunk;
    }
    struct Place {
        std::size_t chunk;
        std::size_t offset;
    };
    static Place place_of(std::size_t at) {
        if (at < doubling_capacity) {
            const std::size_t chunk = std::bit_width(at / first_chunk + 1) - 1;
            return {chunk, at - first_chunk * ((std::size_t{1} << chunk) - 1)};
        }
        at -= doubling_capacity;
        return {doubling_chunks + at / most_per_chunk, at % most_per_chunk};
    }

    std::vector<T*> chunks_;
    std::size_t size_ = 0;
};

}  // namespace locksim
