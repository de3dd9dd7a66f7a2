import Geo

extension KeyedDecodingContainer {
    /// Refuses `coordinate`, read at `key`, as corrupted data unless it is a real one (latitude
    /// −90…90, longitude −180…180): a destination, a building and a door alike, since the plan
    /// walks there and every rule measures from it.
    func requireValid(_ coordinate: Coordinate, forKey key: Key) throws {
        guard coordinate.isValid else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self,
                debugDescription: "coordinate \(coordinate) is outside −90…90, −180…180")
        }
    }
}
