/// A test-support failure with a message.
package struct TestError: Error, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}
