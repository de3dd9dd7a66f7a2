/// An apartment complex as Korean OSM data tags one: three buildings, "래미안 101동", "102동"
/// and "103동", 89 m apart northwards from 37.5001, 127.0003, each tagged with the complex's
/// one address, 반포대로 275 (audit 12's A12-4).
package func apartmentComplex() -> [SquareBuilding] {
    [(37.5001, "101동"), (37.5009, "102동"), (37.5017, "103동")].map { lat, dong in
        SquareBuilding(
            lat: lat, lon: 127.0003,
            tags: [
                "building": "apartments", "name": "래미안 \(dong)", "addr:street": "반포대로",
                "addr:housenumber": "275",
            ])
    }
}
